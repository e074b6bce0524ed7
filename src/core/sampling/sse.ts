// Server-sent events, as the OpenAI-compatible servers stream them: `data:` lines, an event per
// blank line. Only `data` matters to Chat Completions (no ids, no reconnection), so this is the
// few lines of the WHATWG parsing rules that apply, rather than a dependency.
import { TooLargeError } from './limits';

/** Splits a byte stream into the `data` payloads of its events, in order. */
export class SseParser {
  /** `maxEventChars` bounds one event (and one line): a server that never ends one must not fill memory. */
  constructor(private readonly maxEventChars = Infinity) {}

  private buffer = '';
  private dataChars = 0;
  private data: string[] = [];
  private readonly decoder = new TextDecoder();
  // A chunk may end between `\r` and `\n`: the `\n` that follows must not make a second line.
  private skipLf = false;

  /** Feeds bytes (or text); returns the events they complete. */
  push(chunk: Uint8Array | string): string[] {
    let text = typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true });
    if (this.skipLf && text.startsWith('\n')) text = text.slice(1);
    this.skipLf = false;
    this.buffer += text;
    const events: string[] = [];
    let start = 0;
    const buf = this.buffer;
    for (let i = 0; i < buf.length; i++) {
      const c = buf.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      this.line(buf.slice(start, i), events);
      if (c === 13) {
        if (i + 1 < buf.length) {
          if (buf.charCodeAt(i + 1) === 10) i++;
        } else {
          this.skipLf = true;
        }
      }
      start = i + 1;
    }
    this.buffer = buf.slice(start);
    if (this.buffer.length + this.dataChars > this.maxEventChars)
      throw new TooLargeError('one streamed event', this.maxEventChars);
    return events;
  }

  /** The end of the stream: a last event without its blank line is incomplete and dropped, as the standard says. */
  end(): string[] {
    this.buffer += this.decoder.decode();
    this.buffer = '';
    this.data = [];
    this.dataChars = 0;
    return [];
  }

  private line(line: string, events: string[]): void {
    if (line === '') {
      if (this.data.length) events.push(this.data.join('\n'));
      this.data = [];
      this.dataChars = 0;
      return;
    }
    if (line.charCodeAt(0) === 58 /* : comment, keep-alive */) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    if (field !== 'data') return;
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    this.data.push(value);
    this.dataChars += value.length + 1;
    if (this.dataChars > this.maxEventChars) throw new TooLargeError('one streamed event', this.maxEventChars);
  }
}

/** The `data` payloads of a body, as they arrive; leaving the loop early stops the body. */
export async function* sseEvents(body: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const parser = new SseParser();
  for await (const chunk of body) {
    for (const e of parser.push(chunk)) yield e;
  }
  parser.end();
}
