// `JSON.stringify(value)` written in pieces: the text is the same, but the arrays of a large
// object (`vtask stats --json` prints 40 MB for 100,000 tasks) are stringified an element at a
// time and written about a megabyte at a time, so the whole text is never one string, nor
// copied into one buffer to be written.

/** About how many characters are gathered before each write. */
const PIECE = 1 << 20;

/** Writes `JSON.stringify(value)` through `write`, in pieces. */
export function writeJson(write: (s: string) => unknown, value: unknown): void {
  if (!isPlainObject(value)) {
    write(JSON.stringify(value));
    return;
  }
  let piece = '';
  const add = (s: string): void => {
    piece += s;
    if (piece.length >= PIECE) {
      write(piece);
      piece = '';
    }
  };
  add('{');
  let first = true;
  for (const key of Object.keys(value)) {
    const v = value[key];
    if (Array.isArray(v) && !hasToJSON(v)) {
      add(`${first ? '' : ','}${JSON.stringify(key)}:[`);
      // An element JSON.stringify cannot write is null in an array.
      for (let i = 0; i < v.length; i++) add((i ? ',' : '') + ((JSON.stringify(v[i]) as string | undefined) ?? 'null'));
      add(']');
    } else {
      const text = JSON.stringify(v) as string | undefined;
      // What JSON.stringify leaves out of an object: undefined, functions, symbols.
      if (text === undefined) continue;
      add(`${first ? '' : ','}${JSON.stringify(key)}:${text}`);
    }
    first = false;
  }
  add('}');
  write(piece);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v) || hasToJSON(v)) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

function hasToJSON(v: object): boolean {
  return typeof (v as { toJSON?: unknown }).toJSON === 'function';
}
