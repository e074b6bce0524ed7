// Watches every string a TextDecoder makes while `f` runs: a reader that decodes a file in pieces
// must keep each piece under about 128 KB, past which V8 puts a string in its large-object space,
// freed only by a full collection (dead pieces of a megabyte piled up to tens of megabytes).
/** What `f` returned, the most characters in one decoded string, and the characters decoded in all. */
export function decodedStrings<T>(f: () => T): { value: T; longest: number; total: number } {
  const decode = TextDecoder.prototype.decode;
  let longest = 0;
  let total = 0;
  TextDecoder.prototype.decode = function (this: TextDecoder, ...args: Parameters<TextDecoder['decode']>): string {
    const s = decode.apply(this, args);
    longest = Math.max(longest, s.length);
    total += s.length;
    return s;
  };
  try {
    return { value: f(), longest, total };
  } finally {
    TextDecoder.prototype.decode = decode;
  }
}

/** The most characters a decoded piece may have: two bytes each, under 64 KB. */
export const YOUNG_PIECE_CHARS = 32 * 1024;
