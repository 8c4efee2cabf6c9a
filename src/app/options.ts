/** Start options of `svc-code serve`. */
export interface ServeOptions {
  host: string;
  port: number;
  dangerousBypassAuth: boolean;
  allowRemoteShutdown: boolean;
  allowRemoteTerminals: boolean;
  debugEndpoints: boolean;
  webTitle?: string;
  /** The built web UI served on non-/api paths; default dist/web of this package (tests point it elsewhere). */
  webRoot?: string;
  /** Extra Host names to serve (DNS-rebinding protection refuses the others); see docs/http-conventions.md. */
  allowedHosts?: string[];
  /** Rebuild every projection from the journal at start. */
  rebuildProjections?: boolean;
  /** `--journal-url` / `SVC_CODE_JOURNAL_URL`: a `postgres://` URL selects the PostgreSQL journal (docs/journal.md). */
  journalUrl?: string;
}

export const DEFAULT_PORT = 58627;
export const PORT_TRIES = 100;

export function defaultServeOptions(): ServeOptions {
  return {
    host: '127.0.0.1',
    port: DEFAULT_PORT,
    dangerousBypassAuth: false,
    allowRemoteShutdown: false,
    allowRemoteTerminals: false,
    debugEndpoints: false,
  };
}

export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);
}
