// Whether a JSON-lines or Parquet file is a dataset, told from its first rows only: the editor's
// view and dashboard list the files in a known row format (as `vtask stats` reads them) without
// reading a benchmark or a log through.
import { readRows, rowFileType } from './rowFiles';
import { parseRowTasks } from './rowTasks';

/** Rows read to tell a file's format (as `vtask stats` and `vtask import` tell it). */
export const DETECT_ROWS = 100;

/** The import format of a row file's first rows, or undefined when it is no dataset (or not a row file). */
export async function rowFileFormat(file: string): Promise<string | undefined> {
  const type = rowFileType(file);
  if (!type) return undefined;
  const lines: string[] = [];
  for await (const r of readRows(file, type)) {
    if (r.row) lines.push(JSON.stringify(r.row));
    // Leaving the loop closes the reader: the rest of the file is never read.
    if (lines.length >= DETECT_ROWS) break;
  }
  return lines.length ? parseRowTasks(lines.join('\n'), { maxRows: DETECT_ROWS }).format : undefined;
}
