// A file's tasks, whatever the file is: a task file's read one at a time, or a JSONL or Parquet
// dataset's rows read as tasks (as `vtask run` and the editor read them). The export, the audit
// and the workbench's bulk actions take both through these two steps: the text, then its tasks.
import fs from 'node:fs';
import { streamParsed, streamTaskFile, type ChunkBatchParser, type TaskStream } from '../taskfile/stream';
import { rowFileText, rowFileType } from './rowFiles';
import { parseRowTasks } from './rowTasks';

/** A file's text as its tasks are read from: a dataset's rows as JSON lines (`rowFileText`). */
export async function readFileTasksText(file: string): Promise<string> {
  return rowFileType(file) ? rowFileText(file) : fs.promises.readFile(file, 'utf8');
}

/** The tasks of `text`, the text of `file` as `readFileTasksText` gives it. */
export function streamFileTasks(file: string, text: string, parseBatch?: ChunkBatchParser): TaskStream {
  // Every row of a dataset, not the editor's window of the first ones.
  return rowFileType(file)
    ? streamParsed(parseRowTasks(text, { maxRows: Infinity }))
    : streamTaskFile(text, parseBatch);
}
