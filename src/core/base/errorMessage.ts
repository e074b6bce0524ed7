/** The message of whatever was thrown: an Error's message, or the thrown value itself as text. */
export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
