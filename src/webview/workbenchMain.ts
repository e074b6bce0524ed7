// The workbench page: one table of every task of a dataset (task files, JSONL, Parquet), with a
// query box (`band:too_hard kind:math rate<0.2 label:!checked` and free words), sortable and
// resizable columns and a selection. The host holds the index; this page holds the rows in view.
import { button, el, icon, pageRoot, showNoticeIn, onHostMessage } from './dom';
import { WorkbenchTable, type WorkbenchState } from './workbenchTable';
import { initialSamplesState, restoreSamplesState, WorkbenchSamples, type SamplesViewState } from './workbenchSamples';
import { BulkBar } from './workbenchBulk';
import { toWorkbench, type FromWorkbench, type ToWorkbench } from '../core/base/workbenchProtocol';
import { RowSet } from '../core/base/rowSet';

interface VsCodeApi {
  postMessage(message: FromWorkbench): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
const root = pageRoot();
root.classList.add('workbench');
const notice = el('div', 'notice');
notice.setAttribute('role', 'alert');
root.before(notice);

/** The page's state: the table's, and which view shows (the table or the samples view). */
type PageState = WorkbenchState & { tab?: 'samples'; samples?: SamplesViewState };
const saved = (vscode.getState() ?? {}) as Partial<PageState>;
const state: PageState = {
  query: typeof saved.query === 'string' ? saved.query : '',
  widths: saved.widths && typeof saved.widths === 'object' ? { ...saved.widths } : {},
  ...(saved.sort && typeof saved.sort.column === 'string' ? { sort: saved.sort } : {}),
  ...(typeof saved.model === 'string' ? { model: saved.model } : {}),
  ...(saved.tab === 'samples' ? { tab: saved.tab } : {}),
  samples: restoreSamplesState(saved.samples),
};
const post = (m: FromWorkbench): void => vscode.postMessage(m);
let table: WorkbenchTable | undefined;
let samplesView: WorkbenchSamples | undefined;
let seq = 0;
const input = el('input', 'query');
const queryError = el('div', 'query-error');
queryError.setAttribute('role', 'status');
const count = el('span', 'count');
const selection = el('span', 'selection');
const bulk = new BulkBar((m) => post(m));

const showNotice = (level: 'info' | 'warning' | 'error', text: string): void => showNoticeIn(notice, level, text);

/** Asks for the view of the query typed and the sort chosen. */
function requestView(): void {
  state.query = input.value;
  vscode.setState(state);
  post({ type: 'view', seq: ++seq, query: state.query, ...(state.sort ? { sort: state.sort } : {}) });
}

/** The buttons that act on the selection: disabled without one. */
let labelButtons: HTMLButtonElement[] = [];

function showSelection(): void {
  if (!table) return;
  const n = table.selected.size;
  selection.textContent = n ? `${n.toLocaleString('en-US')} selected` : '';
  for (const b of labelButtons) b.disabled = n === 0;
  vscode.setState(state);
}

function open(msg: Extract<ToWorkbench, { type: 'opened' }>): void {
  if (state.model === undefined || !msg.models.includes(state.model)) {
    const model = msg.models[0];
    if (model === undefined) delete state.model;
    else state.model = model;
  }
  const head = el('header');
  head.append(
    el('h1', undefined, msg.title),
    el(
      'span',
      'file',
      `${msg.rows.toLocaleString('en-US')} tasks in ${msg.files.toLocaleString('en-US')} ${msg.files === 1 ? 'file' : 'files'}`,
    ),
  );
  input.type = 'search';
  input.value = state.query;
  input.placeholder = 'band:too_hard kind:math model:strong rate<0.2 label:!checked words…';
  input.setAttribute('aria-label', 'Query');
  input.spellcheck = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  input.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(requestView, 250);
  });
  input.addEventListener('keydown', (e) => {
    if (e.key !== 'Enter') return;
    clearTimeout(timer);
    requestView();
  });
  const bar = el('div', 'toolbar');
  const models = el('select', 'model');
  models.setAttribute('aria-label', 'Model whose details are shown');
  for (const m of msg.models) {
    const o = el('option', undefined, m);
    o.value = m;
    models.append(o);
  }
  if (state.model) models.value = state.model;
  models.disabled = msg.models.length === 0;
  // Sorting (a header clicked) asks for the view again; any change shows the selection's size.
  const sortNow = (): string => JSON.stringify(state.sort ?? null);
  let sorted = sortNow();
  const changed = (): void => {
    showSelection();
    if (sortNow() !== sorted) {
      sorted = sortNow();
      requestView();
    }
  };
  const t = new WorkbenchTable(msg.models, state, post, changed);
  models.addEventListener('change', () => {
    state.model = models.value;
    t.setColumns();
    // The sort by another model's detail is kept: its header is simply not shown.
    vscode.setState(state);
  });
  const selectAll = button(
    'Select all matching',
    'check-all',
    () => post({ type: 'selectRange', start: 0, end: t.viewSize }),
    { className: 'select-all' },
  );
  const clear = button('Clear selection', 'clear-all', () => t.clearSelection(), { className: 'clear' });
  const label = button('Label…', 'tag', () => post({ type: 'label', rows: t.selected.encode() }), {
    className: 'label-set',
  });
  const unlabel = button(
    'Clear label',
    'close',
    () => post({ type: 'label', rows: t.selected.encode(), clear: true }),
    {
      className: 'label-clear',
    },
  );
  const run = button('Run…', 'play', () => post({ type: 'run', rows: t.selected.encode() }), {
    className: 'run-selected',
  });
  const audit = button('Audit', 'shield', () => post({ type: 'audit', rows: t.selected.encode() }), {
    className: 'audit-selected',
  });
  const exportRows = button('Export…', 'export', () => post({ type: 'export', rows: t.selected.encode() }), {
    className: 'export-selected',
  });
  const panel = button('Open in panel', 'open-preview', () => post({ type: 'openPanel', rows: t.selected.encode() }), {
    className: 'panel-selected',
  });
  labelButtons = [label, unlabel, run, audit, exportRows, panel];
  bar.append(input, models, selectAll, clear, run, audit, exportRows, panel, label, unlabel, count, selection);
  root.replaceChildren(head, bar, queryError, bulk.element);
  for (const note of msg.notes) root.append(el('div', 'notice warning', note));
  const sv = new WorkbenchSamples(
    post,
    state.samples ?? initialSamplesState(),
    () => vscode.setState(state),
    () => t.selected,
  );
  head.append(tabs(t, sv));
  root.append(t.element, sv.element);
  table = t;
  samplesView = sv;
  window.addEventListener('resize', () => t.fit());
  requestView();
}

/** Tasks | Samples: which view shows under the query. */
function tabs(t: WorkbenchTable, sv: WorkbenchSamples): HTMLElement {
  const bar = el('div', 'tabs');
  bar.setAttribute('role', 'tablist');
  const show = (tab: 'tasks' | 'samples'): void => {
    if (tab === 'samples') state.tab = tab;
    else delete state.tab;
    vscode.setState(state);
    t.element.hidden = tab === 'samples';
    sv.element.hidden = tab !== 'samples';
    for (const b of [tasks, samples]) b.setAttribute('aria-selected', String(b.dataset.tab === tab));
    if (tab === 'samples') sv.request();
    else t.fit();
  };
  const tasks = button('Tasks', 'table', () => show('tasks'), { className: 'tab' });
  const samples = button('Samples', 'output', () => show('samples'), { className: 'tab' });
  tasks.dataset.tab = 'tasks';
  samples.dataset.tab = 'samples';
  for (const b of [tasks, samples]) b.setAttribute('role', 'tab');
  bar.append(tasks, samples);
  // Once the page is laid out, the view saved shows.
  setTimeout(() => show(state.tab ?? 'tasks'));
  return bar;
}

function receive(msg: ToWorkbench): void {
  switch (msg.type) {
    case 'opened':
      open(msg);
      break;
    case 'progress':
      root.replaceChildren(el('p', 'empty', `Reading the dataset… ${msg.done} of ${msg.total} files`));
      break;
    case 'error': {
      const box = el('div', 'notice error open-error');
      box.append(icon('error'), ` ${msg.text}`);
      root.replaceChildren(box);
      break;
    }
    case 'view':
      if (msg.seq !== seq || !table) return;
      queryError.textContent = '';
      input.removeAttribute('aria-invalid');
      count.textContent = `${msg.size.toLocaleString('en-US')} matching`;
      table.setView(msg.seq, msg.size);
      // The samples view follows the query.
      if (state.tab === 'samples') samplesView?.request();
      break;
    case 'queryError':
      if (msg.seq !== seq) return;
      input.setAttribute('aria-invalid', 'true');
      queryError.textContent = `Column ${msg.at + 1}: ${msg.error}`;
      break;
    case 'rows':
      table?.addRows(msg.seq, msg.start, msg.rows);
      break;
    case 'select':
      table?.addSelection(RowSet.decode(msg.rows));
      break;
    case 'notice':
      showNotice(msg.level, msg.text);
      break;
    case 'samples':
    case 'sampleItems':
    case 'casesAdded':
      samplesView?.receive(msg);
      break;
    case 'labelled':
      // The labels shown, and the rows a `label:` query keeps, changed.
      requestView();
      break;
    case 'confirmRun':
      bulk.confirmRun(msg);
      break;
    case 'bulk':
      bulk.showProgress(msg);
      break;
    case 'bulkDone':
      // Findings were set: the rows shown, and those a `findings>0` query keeps, changed.
      bulk.done();
      showNotice(msg.level, msg.text);
      requestView();
      break;
    case 'stepping':
      bulk.stepping(msg);
      break;
  }
}

onHostMessage(toWorkbench, receive, () =>
  showNotice('error', 'The workbench received an update it could not read; reopen it to refresh it.'),
);

post({ type: 'ready' });
