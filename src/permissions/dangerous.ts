/**
 * Built-in dangerous-command policy (`[permission] dangerous_command_guard`).
 * A match makes the call ask for approval in manual and auto mode, even when an
 * allow rule matched; yolo (never-ask) mode skips it, as Part B says.
 */
const DANGEROUS: { re: RegExp; why: string }[] = [
  { re: /\brm\s+(-[a-zA-Z]*\s+)*-[a-zA-Z]*[rR][a-zA-Z]*\s+(-[a-zA-Z]+\s+)*(--no-preserve-root\s+)?("|')?(\/|~|\$HOME|\/\*|~\/\*?|\.\.?\/?|\*)("|')?(\s|$|;|&|\|)/, why: 'recursive delete of the root, the home or the current directory' },
  { re: /\bmkfs(\.\w+)?\b/, why: 'formats a file system' },
  { re: /\bdd\b[^|;&]*\bof=\/dev\//, why: 'writes to a raw device' },
  { re: />\s*\/dev\/(sd|nvme|hd|disk|mmcblk)/, why: 'writes to a raw device' },
  { re: /:\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:/, why: 'fork bomb' },
  { re: /\bchmod\s+(-[a-zA-Z]*\s+)*-[a-zA-Z]*R[a-zA-Z]*\s+(0?777|a\+rwx)\s+\/(\s|$)/, why: 'makes the whole file system world-writable' },
  { re: /\bchown\s+(-[a-zA-Z]*\s+)*-[a-zA-Z]*R[a-zA-Z]*\s+\S+\s+\/(\s|$)/, why: 'changes the owner of the whole file system' },
  { re: /\b(curl|wget)\b[^|;&]*\|\s*(sudo\s+)?(ba|z|da|k)?sh\b/, why: 'runs a downloaded script' },
  { re: /\bgit\s+push\b(?=.*(\s--force\b|\s-f\b|\s--force-with-lease\b|\s\+\w))(?=.*\b(main|master)\b)/, why: 'force-pushes to main' },
  { re: /\bshutdown\b|\breboot\b|\bhalt\b|\bpoweroff\b/, why: 'stops the machine' },
  { re: /\bgit\s+reset\s+--hard\b.*\borigin\b|\bgit\s+clean\s+-[a-zA-Z]*f[a-zA-Z]*d|\bgit\s+clean\s+-[a-zA-Z]*d[a-zA-Z]*f/, why: 'discards work irrecoverably' },
];

/** Why the command is dangerous, or undefined when it is not. */
export function dangerousReason(command: string): string | undefined {
  const c = command.replace(/\s+/g, ' ');
  return DANGEROUS.find((d) => d.re.test(c))?.why;
}
