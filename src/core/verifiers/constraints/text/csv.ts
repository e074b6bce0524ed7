import { at } from '../../../util/must';
/*
 * Python's `csv.reader` with the default (excel) dialect and a chosen delimiter, over
 * `io.StringIO(text)`: quoted fields may span lines, `""` inside quotes is one quote, a quote
 * after a closed quoted field is kept as text (non-strict mode), an empty line is an empty row,
 * and an unterminated quoted field ends at the end of the data. IFBench's CSV checks count rows
 * and fields exactly as this reader returns them.
 */
const enum S {
  StartRecord,
  StartField,
  InField,
  InQuoted,
  QuoteInQuoted,
  EatCrnl,
}

export function readCsv(text: string, delimiter = ','): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let state = S.StartRecord;
  const save = (): void => {
    row.push(field);
    field = '';
  };
  const endRow = (): void => {
    rows.push(row);
    row = [];
  };
  /** The field and the row end here; the machine goes on in `next`. */
  const endRecord = (next: S): void => {
    save();
    endRow();
    state = next;
  };
  // StringIO yields lines ending in \n (a \r\n pair, a lone \r too, as universal newlines are off
  // for StringIO; csv treats \r and \n alike outside quotes).
  for (let i = 0; i <= text.length; i++) {
    const eol = i === text.length;
    const c = eol ? '' : at(text, i);
    switch (state) {
      case S.StartRecord:
        if (eol) break;
        if (c === '\n' || c === '\r') {
          state = S.EatCrnl;
          rows.push([]);
          break;
        }
        state = S.StartField;
        i--; // the same character again, now at the start of a field
        break;
      case S.StartField:
        if (eol) {
          endRecord(S.StartRecord);
        } else if (c === '\n' || c === '\r') {
          endRecord(S.EatCrnl);
        } else if (c === '"') state = S.InQuoted;
        else if (c === delimiter) save();
        else {
          field += c;
          state = S.InField;
        }
        break;
      case S.InField:
        if (eol) {
          endRecord(S.StartRecord);
        } else if (c === '\n' || c === '\r') {
          endRecord(S.EatCrnl);
        } else if (c === delimiter) {
          save();
          state = S.StartField;
        } else field += c;
        break;
      case S.InQuoted:
        if (eol) {
          endRecord(S.StartRecord);
        } else if (c === '"') state = S.QuoteInQuoted;
        else field += c;
        break;
      case S.QuoteInQuoted:
        if (eol) {
          endRecord(S.StartRecord);
        } else if (c === '"') {
          field += '"';
          state = S.InQuoted;
        } else if (c === delimiter) {
          save();
          state = S.StartField;
        } else if (c === '\n' || c === '\r') {
          endRecord(S.EatCrnl);
        } else {
          field += c;
          state = S.InField;
        }
        break;
      case S.EatCrnl:
        if (eol) break;
        if (c === '\n' || c === '\r') {
          if (c === '\n' && text[i - 1] === '\r') break;
          rows.push([]);
          break;
        }
        state = S.StartRecord;
        i--;
        break;
    }
  }
  return rows;
}
