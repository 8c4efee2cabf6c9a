// The daemon's CSP admits `<style>` elements only with the page's nonce (src/http/static.ts), which it
// hands over as <meta property="csp-nonce" nonce="…">. @xterm/xterm creates <style> elements (theme
// colours, cell dimensions, the scrollbar) and takes no nonce option, so every <style> created through
// document.createElement gets the nonce stamped before it is inserted (a nonce set after insertion does
// not count). Only this page's own scripts run (script-src 'self'), so the stamp admits only their styles.

let installed = false;

export function stampStyleNonce(): void {
  if (installed) return;
  const nonce = (document.querySelector('meta[property="csp-nonce"]') as HTMLMetaElement | null)?.nonce;
  if (!nonce) return;
  installed = true;
  const create = document.createElement;
  document.createElement = function (this: Document, tag: string, options?: ElementCreationOptions) {
    const el = create.call(this, tag, options);
    if (tag.toLowerCase() === 'style') el.nonce = nonce;
    return el;
  } as typeof document.createElement;
}
