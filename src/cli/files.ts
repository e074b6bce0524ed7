import { errnoOf } from '../core/base/record';
import { errorMessage } from '../core/base/errorMessage';
import { DETECT_ROWS, NOT_A_DATASET } from '../core/datasets/detectFormat';
import { rowFileFormat } from '../core/datasets/rowFormat';
import { rowFileText, rowFileType } from '../core/datasets/rowFiles';
import { parseRowTasks } from '../core/datasets/rowTasks';
import fs from 'node:fs';
import path from 'node:path';
import { findTaskFiles, fsReason } from '../core/taskfile/discover';
import { LIMITS } from '../core/taskfile/limits';
import { UsageError, type CliIO } from './io';
import { terminalSafe } from './terminal';

/** A problem with a path, in the `file:line:col: severity: message` shape of every problem. */
export function pathProblem(file: string, severity: 'error' | 'warning', message: string, line = 1, col = 1): string {
  return `${file}:${line}:${col}: ${severity}: ${message}`;
}

/**
 * The task files under `paths`; what cannot be used (unreadable folders, FIFOs) is reported on
 * `out`, and `errors` counts the unreadable ones.
 */
export function listTaskFiles(
  paths: readonly string[],
  out: CliIO['stdout'],
  o: { readonly rows?: boolean } = {},
): { files: string[]; errors: number } {
  let errors = 0;
  const files = findTaskFiles(
    paths,
    (s) => {
      out.write(pathProblem(s.path, s.severity, s.message) + '\n');
      if (s.severity === 'error') errors++;
    },
    o,
  );
  return { files, errors };
}

/** A task file's text, and problems with its bytes (`file:line:col` lines); or why it cannot be read. */
export type ReadResult = { readonly text: string; readonly problems: readonly string[] } | { readonly error: string };

const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const lenient = new TextDecoder('utf-8', { ignoreBOM: true });

export function readTaskText(file: string): ReadResult {
  let bytes: Buffer;
  try {
    // Opened once and checked through the descriptor, so a file swapped for a FIFO after
    // discovery still cannot block the read.
    const fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
    try {
      const st = fs.fstatSync(fd);
      if (!st.isFile()) return { error: pathProblem(file, 'error', 'cannot read it: it is not a regular file') };
      if (st.size > LIMITS.fileBytes)
        return {
          error: pathProblem(
            file,
            'error',
            `the file has ${st.size} bytes, over the limit of ${LIMITS.fileBytes}: split it into several task files`,
          ),
        };
      bytes = fs.readFileSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch (e) {
    return { error: pathProblem(file, 'error', `cannot read the file: ${fsReason(e)}`) };
  }
  try {
    return { text: strict.decode(bytes), problems: [] };
  } catch {
    // Not UTF-8: an error (a dataset must not carry U+FFFD where the author wrote something
    // else), at the first bad byte; the rest is still checked as read with U+FFFD.
    const at = invalidUtf8At(bytes);
    const before = lenient.decode(bytes.subarray(0, at));
    const line = before.split('\n').length;
    const col = before.length - before.lastIndexOf('\n');
    const byte = bytes[at]!.toString(16).padStart(2, '0');
    return {
      text: lenient.decode(bytes),
      problems: [pathProblem(file, 'error', `invalid UTF-8 (byte 0x${byte}): save the file as UTF-8`, line, col)],
    };
  }
}

/** Offset of the first byte that does not start or continue a valid UTF-8 sequence. */
export function invalidUtf8At(b: Uint8Array): number {
  for (let i = 0; i < b.length;) {
    const c = b[i]!;
    const n = c < 0x80 ? 0 : c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xf0 && c <= 0xf4 ? 3 : -1;
    if (n < 0) return i;
    for (let k = 1; k <= n; k++) {
      const d = b[i + k];
      if (d === undefined || (d & 0xc0) !== 0x80) return i;
      // Overlong forms, surrogates and code points past U+10FFFF.
      if (
        k === 1 &&
        ((c === 0xe0 && d < 0xa0) || (c === 0xed && d > 0x9f) || (c === 0xf0 && d < 0x90) || (c === 0xf4 && d > 0x8f))
      )
        return i;
    }
    i += n + 1;
  }
  return b.length;
}

/**
 * Checks that a report can be written to `file` before any work is done, so a typo in the
 * folder does not throw away a finished run.
 */
export function checkWritable(file: string, flag: string): void {
  const dir = path.dirname(path.resolve(file));
  let st: fs.Stats | undefined;
  try {
    st = fs.statSync(file);
  } catch {
    // Fine: it is created; its folder must exist and be writable.
  }
  if (st && !st.isFile()) throw new UsageError(`${flag} ${file}: it exists and is not a file`);
  try {
    if (!fs.statSync(dir).isDirectory()) throw new UsageError(`${flag} ${file}: ${dir} is not a folder`);
    fs.accessSync(st ? file : dir, fs.constants.W_OK);
  } catch (e) {
    if (e instanceof UsageError) throw e;
    const { code } = errnoOf(e);
    throw new UsageError(
      `${flag} ${file}: ${code === 'ENOENT' ? `the folder ${dir} does not exist` : `cannot write there: ${fsReason(e)}`}`,
    );
  }
}

/**
 * The dataset files among `files` (JSONL and Parquet whose rows are in a known format), as the
 * JSON lines their rows are read from as tasks; other such files (a benchmark, a log) are left out.
 */
export async function datasetRows(files: readonly string[], io: Pick<CliIO, 'stderr'>): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const f of files) {
    if (!rowFileType(f)) continue;
    let text: string;
    try {
      text = await rowFileText(f);
    } catch (e) {
      io.stderr.write(terminalSafe(pathProblem(f, 'error', `cannot read its rows: ${errorMessage(e)}`)) + '\n');
      continue;
    }
    if (parseRowTasks(text, { maxRows: DETECT_ROWS }).format !== undefined) out.set(f, text);
  }
  return out;
}

/**
 * Whether every JSONL or Parquet file among `files` is a dataset in a known training format (told
 * from its first rows); each that is not, or cannot be read, is said as an error on `out`.
 */
export async function datasetsKnown(files: readonly string[], out: CliIO['stderr']): Promise<boolean> {
  let ok = true;
  for (const f of files) {
    if (!rowFileType(f)) continue;
    let problem: string | undefined;
    try {
      if ((await rowFileFormat(f)) === undefined) problem = NOT_A_DATASET;
    } catch (e) {
      problem = `cannot read its rows: ${errorMessage(e)}`;
    }
    if (problem === undefined) continue;
    out.write(terminalSafe(pathProblem(f, 'error', problem)) + '\n');
    ok = false;
  }
  return ok;
}
