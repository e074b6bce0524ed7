// Line arithmetic on a file's text, for edits that insert or remove whole lines.
export function lineStartAt(text: string, pos: number): number {
  return text.lastIndexOf('\n', pos - 1) + 1;
}

/** The end of the line holding `pos`, before its `\n` or `\r\n`. */
export function lineEndAt(text: string, pos: number): number {
  const i = text.indexOf('\n', pos);
  if (i === -1) return text.length;
  return i > pos && text[i - 1] === '\r' ? i - 1 : i;
}

/** Just after the line break that ends the line holding `pos` (or the end of the text). */
export function nextLineAt(text: string, pos: number): number {
  const i = text.indexOf('\n', pos);
  return i === -1 ? text.length : i + 1;
}

export function columnAt(text: string, pos: number): number {
  return pos - lineStartAt(text, pos);
}

/** The file's line break, so inserted lines match (CRLF files stay CRLF). */
export function eolOf(text: string): string {
  const i = text.indexOf('\n');
  return i > 0 && text[i - 1] === '\r' ? '\r\n' : '\n';
}
