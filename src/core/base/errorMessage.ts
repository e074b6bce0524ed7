/** The message of whatever was thrown: an Error's message, or the thrown value itself as text. */
export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** The code of a Node system error (`ENOENT`), or undefined for anything else that was thrown. */
export function errnoCode(e: unknown): string | undefined {
  return e instanceof Error && 'code' in e && typeof e.code === 'string' ? e.code : undefined;
}
