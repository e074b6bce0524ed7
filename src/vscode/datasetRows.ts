import * as vscode from 'vscode';
import { DatasetTable } from '../core/datasets/datasetView';
import { trimOldest } from '../core/util/trimOldest';

/**
 * A row of a dataset as a read-only task document, `vtask-row:/dir/train.parquet/row-12.vtask`:
 * the task file of one task `vtask import` would write for it. ▶ Run verifier and the task
 * panel work on it as on any task file, so a row runs through the same machinery as a lens.
 */
export const ROW_SCHEME = 'vtask-row';

export function rowUri(file: vscode.Uri, n: number): vscode.Uri {
  return file.with({ scheme: ROW_SCHEME, path: `${file.path}/row-${n}.vtask` });
}

/** The dataset file and row number of a row document, or undefined for any other document. */
export function parseRowUri(uri: vscode.Uri): { file: vscode.Uri; n: number } | undefined {
  const m = uri.scheme === ROW_SCHEME ? /^(.*)\/row-(\d+)\.vtask$/.exec(uri.path) : null;
  return m ? { file: uri.with({ scheme: 'file', path: m[1] }), n: Number(m[2]) } : undefined;
}

/** Tables kept open at once (each holds a few decoded blocks of rows). */
const TABLES_KEPT = 4;

/**
 * Opened dataset files, shared by the table views and the row documents; a file that changed
 * on disk (another size or time) is opened again.
 */
export class DatasetTables {
  private readonly open = new Map<string, Promise<DatasetTable>>();

  async get(file: vscode.Uri): Promise<DatasetTable> {
    const stat = await vscode.workspace.fs.stat(file);
    const key = `${file.toString()}\0${stat.mtime}\0${stat.size}`;
    let table = this.open.get(key);
    if (!table) {
      table = DatasetTable.open(file.fsPath);
      // A file that failed to open is tried again next time (it may have been fixed).
      table.catch(() => this.open.delete(key));
      this.open.set(key, table);
      trimOldest(this.open, TABLES_KEPT);
    }
    return table;
  }
}

/** Serves row documents, and opens them for a run or the task panel. */
export class RowDocuments implements vscode.TextDocumentContentProvider {
  constructor(private readonly tables: DatasetTables) {}

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const at = parseRowUri(uri);
    if (!at) return '';
    const r = await (await this.tables.get(at.file)).taskFile(at.n);
    // Said in the file itself: the task file parser reports the empty list, not a blank page.
    return 'error' in r ? `# Row ${at.n} cannot be a task: ${r.error}\nvtask: 1\ntasks: []\n` : r.text;
  }

  /** Row `n` of `file` as an open task document with its task id, or why it cannot be one. */
  async open(file: vscode.Uri, n: number): Promise<{ doc: vscode.TextDocument; id: string } | { error: string }> {
    const r = await (await this.tables.get(file)).taskFile(n);
    if ('error' in r) return r;
    return { doc: await vscode.workspace.openTextDocument(rowUri(file, n)), id: r.id };
  }
}
