// The strings of a JSON array of strings in a file (a remembered summary's prompts line), read a
// block at a time and given one by one: a million prompts are never one string, nor an array of
// a million. Quotes and backslashes are ASCII, never part of a multi-byte UTF-8 character, so
// the bytes are scanned as they are and each string is decoded alone.
import { fileBlocks } from '../../util/fileBlocks';

const BLOCK = 1 << 16;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN = 0x5b;
const CLOSE = 0x5d;

/**
 * Each string of the JSON array that starts at byte `start` of `file` (`''` for each when `parse`
 * is false: counting them costs no decoding). Throws when the text there is not such an array.
 */
export function* jsonStrings(file: string, start: number, parse = true): Generator<string> {
  // What is expected next: `[`, a string or `]`, a string, `,` or `]`; or inside a string.
  let state: 'open' | 'first' | 'value' | 'after' | 'in' | 'done' = 'open';
  let escaped = false;
  let pieces: Buffer[] = [];
  for (const { bytes: block, at } of fileBlocks(file, start, BLOCK)) {
    const n = block.length;
    let from = 0;
    for (let i = 0; i < n && state !== 'done'; i++) {
      const c = block[i];
      if (state === 'in') {
        if (escaped) escaped = false;
        else if (c === BACKSLASH) escaped = true;
        else if (c === QUOTE) {
          state = 'after';
          if (!parse) yield '';
          else {
            pieces.push(Buffer.from(block.subarray(from, i + 1)));
            const text = JSON.parse(Buffer.concat(pieces).toString('utf8')) as unknown;
            pieces = [];
            if (typeof text !== 'string') throw new Error('not a string');
            yield text;
          }
        }
      } else if (c === QUOTE && state !== 'open' && state !== 'after') {
        state = 'in';
        from = i;
      } else if (c === OPEN && state === 'open') state = 'first';
      else if (c === CLOSE && (state === 'first' || state === 'after')) state = 'done';
      else if (c === COMMA && state === 'after') state = 'value';
      else throw new Error(`not a JSON array of strings at byte ${at + i}`);
    }
    if (state === 'done') break;
    if (state === 'in' && parse) pieces.push(Buffer.from(block.subarray(from, n)));
  }
  if (state !== 'done') throw new Error('the JSON array of strings ends early');
}
