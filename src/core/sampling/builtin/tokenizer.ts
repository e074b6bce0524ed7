// The character-level tokenizer of the built-in models: one token per character (spaces are
// SentencePiece's U+2581), and UTF-8 byte tokens `<0xAB>` for characters outside the vocabulary.

const SPACE_MARK = '\u2581';
const BYTE_PIECE = /^<0x([0-9A-Fa-f]{2})>$/;

// GGUF token types (tokenizer.ggml.token_type).
const TYPE_NORMAL = 1;
const TYPE_BYTE = 6;

export class CharTokenizer {
  private readonly ids = new Map<string, number>();
  private readonly byteIds: (number | undefined)[] = new Array<number | undefined>(256).fill(undefined);
  /** For each id: a byte value, a string, or null for control tokens that print nothing. */
  private readonly pieces: (number | string | null)[];

  constructor(
    readonly tokens: readonly string[],
    types: readonly number[] | undefined,
    readonly bos: number,
    readonly eos: number,
    readonly unk: number | undefined,
  ) {
    this.pieces = tokens.map((piece, id) => {
      const type = types?.[id];
      const byte = BYTE_PIECE.exec(piece);
      if (byte && (type === undefined || type === TYPE_BYTE)) {
        const value = parseInt(byte[1]!, 16);
        this.byteIds[value] ??= id;
        return value;
      }
      const control =
        type !== undefined ? type !== TYPE_NORMAL : piece.length > 2 && piece.startsWith('<') && piece.endsWith('>');
      if (control) return null;
      if (!this.ids.has(piece)) this.ids.set(piece, id);
      return piece.replaceAll(SPACE_MARK, ' ');
    });
  }

  get vocabSize(): number {
    return this.tokens.length;
  }

  /** Token ids of `text` (without BOS). Characters with neither a piece nor byte tokens become `<unk>`. */
  encode(text: string): number[] {
    const out: number[] = [];
    for (const ch of text.replaceAll(' ', SPACE_MARK)) {
      const id = this.ids.get(ch);
      if (id !== undefined) {
        out.push(id);
        continue;
      }
      const bytes = new TextEncoder().encode(ch);
      if (bytes.every((b) => this.byteIds[b] !== undefined)) for (const b of bytes) out.push(this.byteIds[b]!);
      else if (this.unk !== undefined) out.push(this.unk);
    }
    return out;
  }

  /** Text of generated ids; control tokens print nothing, invalid UTF-8 becomes U+FFFD. */
  decode(ids: readonly number[]): string {
    const bytes: number[] = [];
    const encoder = new TextEncoder();
    for (const id of ids) {
      const piece = this.pieces[id];
      if (piece === null || piece === undefined) continue;
      if (typeof piece === 'number') bytes.push(piece);
      else for (const b of encoder.encode(piece)) bytes.push(b);
    }
    return new TextDecoder('utf-8').decode(new Uint8Array(bytes));
  }
}
