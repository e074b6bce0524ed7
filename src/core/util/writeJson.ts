// `JSON.stringify(value)` written in pieces: the text is the same, but the arrays of a large
// object (`vtask stats --json` prints 40 MB for 100,000 tasks) are stringified an element at a
// time and written 32K characters at a time, waiting whenever the stream buffers (a pipe read slower
// than written), so the whole text is never in memory at once.

import { YOUNG_PIECE } from './youngPiece';

/** Where the pieces go: a stream, or anything with `write`. */
export interface JsonOut {
  /** False when the piece was buffered: then `once('drain')` says when to go on. */
  write(s: string): unknown;
  once?(event: 'drain', listener: () => void): unknown;
}

/** About how many characters are gathered before each write: a string that dies young. */
const PIECE = YOUNG_PIECE;

/** Writes `JSON.stringify(value)` to `out`, in pieces. */
export async function writeJson(out: JsonOut, value: unknown): Promise<void> {
  const write = async (s: string): Promise<void> => {
    if (out.write(s) === false && out.once) await new Promise<void>((resolve) => out.once?.('drain', resolve));
  };
  for (const piece of gathered(jsonPieces(value))) await write(piece);
}

/** Pieces of about PIECE characters each, gathered from smaller ones. */
export function* gathered(pieces: Iterable<string>): Generator<string> {
  let piece = '';
  for (const s of pieces) {
    piece += s;
    if (piece.length >= PIECE) {
      yield piece;
      piece = '';
    }
  }
  yield piece;
}

/**
 * The text of `JSON.stringify(value)` in pieces: an array, or the arrays of a plain object,
 * an element at a time; anything else whole.
 */
export function* jsonPieces(value: unknown): Generator<string> {
  if (Array.isArray(value) && !hasToJSON(value)) return yield* arrayPieces(value);
  if (!isPlainObject(value)) return yield (JSON.stringify(value) as string | undefined) ?? '';
  yield '{';
  let first = true;
  for (const key of Object.keys(value)) {
    const v = value[key];
    if (Array.isArray(v) && !hasToJSON(v)) {
      yield `${first ? '' : ','}${JSON.stringify(key)}:`;
      yield* arrayPieces(v);
    } else {
      const text = JSON.stringify(v) as string | undefined;
      // What JSON.stringify leaves out of an object: undefined, functions, symbols.
      if (text === undefined) continue;
      yield `${first ? '' : ','}${JSON.stringify(key)}:${text}`;
    }
    first = false;
  }
  yield '}';
}

function* arrayPieces(v: readonly unknown[]): Generator<string> {
  yield '[';
  // An element JSON.stringify cannot write is null in an array.
  for (let i = 0; i < v.length; i++) yield (i ? ',' : '') + ((JSON.stringify(v[i]) as string | undefined) ?? 'null');
  yield ']';
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v) || hasToJSON(v)) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

function hasToJSON(v: object): boolean {
  return typeof (v as { toJSON?: unknown }).toJSON === 'function';
}
