// The dataset table view: a `.parquet` file as a table of its rows. The host reads row windows
// on demand; this page renders only the rows in view. Dataset text is only ever set as text.
import { button, el, icon, pageRoot, showNoticeIn, onHostMessage } from './dom';
import { DatasetTable, type TableState } from './datasetTable';
import { toDataset, type FromDataset, type ToDataset } from '../core/base/datasetProtocol';

interface VsCodeApi {
  postMessage(message: FromDataset): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
const root = pageRoot();
root.classList.add('dataset');
const notice = el('div', 'notice');
notice.setAttribute('role', 'alert');
root.before(notice);

const saved = vscode.getState() as Partial<TableState> | undefined;
const state: TableState = {
  scrollTop: typeof saved?.scrollTop === 'number' && Number.isFinite(saved.scrollTop) ? saved.scrollTop : 0,
  ...(Number.isInteger(saved?.selected) ? { selected: saved?.selected } : {}),
};
let table: DatasetTable | undefined;
let saveTimer: ReturnType<typeof setTimeout> | undefined;
// Written once scrolling settles, not on every scroll event.
const save = (): void => {
  clearTimeout(saveTimer);
  saveTimer = setTimeout(() => vscode.setState(state), 200);
};
const post = (m: FromDataset): void => vscode.postMessage(m);

const showNotice = (level: 'info' | 'warning' | 'error', text: string): void => showNoticeIn(notice, level, text);

function header(file: string, detail: string, convert: boolean): HTMLElement {
  const head = el('header');
  head.append(el('h1', undefined, file.split(/[\\/]/).pop() ?? file), el('span', 'file', detail));
  if (convert)
    head.append(
      button('Convert to .vtask', 'file-symlink-file', () => post({ type: 'convert' }), { className: 'convert' }),
    );
  return head;
}

function receive(msg: ToDataset): void {
  switch (msg.type) {
    case 'dataset': {
      const { info } = msg;
      const known = info.format !== undefined;
      const detail = `${info.rows.toLocaleString('en-US')} rows${known ? ` · ${info.format}` : ''} · read-only`;
      root.replaceChildren(header(msg.file, detail, known));
      if (info.banner) {
        const banner = el('div', 'notice warning banner');
        banner.setAttribute('role', 'status');
        banner.append(icon('warning'), ` ${info.banner}`);
        root.append(banner);
      }
      if (known)
        root.append(el('p', 'muted hint', '↑ ↓ choose a row · Enter: open in the task panel · R: run the verifier'));
      table = new DatasetTable(info, state, post, save);
      root.append(table.element);
      table.attached();
      break;
    }
    case 'error': {
      table = undefined;
      const box = el('div', 'notice error open-error');
      box.append(icon('error'), ` ${msg.text}`);
      root.replaceChildren(header(msg.file, 'cannot be shown', false), box);
      break;
    }
    case 'rows':
      table?.addRows(msg.rows);
      break;
    case 'run':
      table?.setRun(msg.n, msg.running, msg.result, msg.error);
      break;
    case 'notice':
      showNotice(msg.level, msg.text);
      break;
  }
}

onHostMessage(toDataset, receive, () =>
  showNotice('error', 'The view received an update it could not read; reopen the file to refresh it.'),
);

post({ type: 'ready' });
