// The entries of a file holding one JSON object, read a block at a time: the remembered case
// outcomes (statsMemo.ts) are several megabytes at a million tasks, and parsed whole they were
// a string of the file and an object per entry in the heap at once. Each `"key":value` is cut
// out at the commas outside strings and nesting, and parsed alone; a file JSON.parse would
// refuse is refused too (the error is thrown after the entries before it were given).
import { fileBlocks } from '../../util/fileBlocks';
import { YOUNG_PIECE } from '../../util/youngPiece';

/** Bytes read and decoded at a time: a string each that dies young. */
const BLOCK = YOUNG_PIECE;

/** Each entry of the object in `file`, in file order, as Object.entries of JSON.parse of the file would give them but for repeated keys (each given, in turn). */
export function* jsonEntries(file: string): Generator<[string, unknown]> {
  const decoder = new TextDecoder('utf-8');
  let depth = 0;
  let inString = false;
  let escaped = false;
  let entries = 0;
  let ended = false;
  /** The entry begun in an earlier block. */
  let pending = '';
  const entry = (text: string, last: boolean): [string, unknown] | undefined => {
    // `{}` has no entry; a blank one anywhere else (`{,}`, `{"a":1,}`) is no JSON.
    if (!text.trim()) {
      if (last && entries === 0) return undefined;
      throw new SyntaxError(`an empty entry in ${file}`);
    }
    entries++;
    const one: unknown = JSON.parse(`{${text}}`);
    const pair = typeof one === 'object' && one !== null ? Object.entries(one)[0] : undefined;
    if (!pair) throw new SyntaxError(`not an entry in ${file}`);
    return pair;
  };
  const blocks = (function* () {
    for (const { bytes } of fileBlocks(file, 0, BLOCK)) yield decoder.decode(bytes, { stream: true });
    yield decoder.decode();
  })();
  for (const text of blocks) {
    let from = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (ended) {
        if (!isSpace(c)) throw new SyntaxError(`more after the object in ${file}`);
      } else if (inString) {
        if (escaped) escaped = false;
        else if (c === 0x5c) escaped = true;
        else if (c === 0x22) inString = false;
      } else if (c === 0x22) inString = true;
      else if (c === 0x7b || c === 0x5b) {
        if (depth++ === 0) {
          if (c !== 0x7b || pending.trim() || text.slice(from, i).trim())
            throw new SyntaxError(`not an object: ${file}`);
          pending = '';
          from = i + 1;
        }
      } else if (c === 0x7d || c === 0x5d) {
        if (--depth === 0) {
          const e = entry(pending + text.slice(from, i), true);
          if (e) yield e;
          pending = '';
          ended = true;
        } else if (depth < 0) throw new SyntaxError(`unbalanced in ${file}`);
      } else if (c === 0x2c && depth === 1) {
        const e = entry(pending + text.slice(from, i), false);
        if (e) yield e;
        pending = '';
        from = i + 1;
      }
    }
    if (!ended) pending += text.slice(from);
  }
  if (!ended) throw new SyntaxError(`${file} ends inside its object`);
}

/** JSON's whitespace. */
function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}
