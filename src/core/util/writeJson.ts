// `JSON.stringify(value)` written in pieces: the text is the same, but the arrays of a large
// object (`vtask stats --json` prints 40 MB for 100,000 tasks) are stringified an element at a
// time and written about a megabyte at a time, waiting whenever the stream buffers (a pipe
// read slower than written), so the whole text is never in memory at once.

/** Where the pieces go: a stream, or anything with `write`. */
export interface JsonOut {
  /** False when the piece was buffered: then `once('drain')` says when to go on. */
  write(s: string): unknown;
  once?(event: 'drain', listener: () => void): unknown;
}

/** About how many characters are gathered before each write. */
const PIECE = 1 << 20;

/** Writes `JSON.stringify(value)` to `out`, in pieces. */
export async function writeJson(out: JsonOut, value: unknown): Promise<void> {
  const write = async (s: string): Promise<void> => {
    if (out.write(s) === false && out.once) await new Promise<void>((resolve) => out.once?.('drain', resolve));
  };
  if (!isPlainObject(value)) return write(JSON.stringify(value));
  let piece = '';
  const add = async (s: string): Promise<void> => {
    piece += s;
    if (piece.length >= PIECE) {
      const full = piece;
      piece = '';
      await write(full);
    }
  };
  await add('{');
  let first = true;
  for (const key of Object.keys(value)) {
    const v = value[key];
    if (Array.isArray(v) && !hasToJSON(v)) {
      await add(`${first ? '' : ','}${JSON.stringify(key)}:[`);
      // An element JSON.stringify cannot write is null in an array.
      for (let i = 0; i < v.length; i++)
        await add((i ? ',' : '') + ((JSON.stringify(v[i]) as string | undefined) ?? 'null'));
      await add(']');
    } else {
      const text = JSON.stringify(v) as string | undefined;
      // What JSON.stringify leaves out of an object: undefined, functions, symbols.
      if (text === undefined) continue;
      await add(`${first ? '' : ','}${JSON.stringify(key)}:${text}`);
    }
    first = false;
  }
  await add('}');
  await write(piece);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v) || hasToJSON(v)) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

function hasToJSON(v: object): boolean {
  return typeof (v as { toJSON?: unknown }).toJSON === 'function';
}
