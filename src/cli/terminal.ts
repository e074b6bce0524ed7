/**
 * Control characters that a terminal would act on (ESC starting CSI/OSC sequences that clear
 * the screen or set the title, other C0 and C1 controls, DEL) and bidirectional overrides that
 * reorder what is shown. Newline and tab are layout, not control.
 */
const UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text from a model or a file made safe to print on a terminal: each control character is
 * shown as an escape (`\x1b`, `\u202e`) instead of being acted on. `--json` output and files
 * keep the text verbatim; only human-readable output goes through this.
 */
export function terminalSafe(s: string): string {
  return s.replace(UNSAFE, (c) => {
    const n = c.charCodeAt(0);
    return n <= 0xff ? `\\x${n.toString(16).padStart(2, '0')}` : `\\u${n.toString(16).padStart(4, '0')}`;
  });
}
