// The dataset dashboard: the statistics of `vtask stats` over the workspace's task files, drawn
// from the object the host sends (again after each change). Long lists are shown a page at a
// time; every text from the files (ids, paths, prompt spans) is set as text, never as HTML.
import {
  toDashboard,
  type ComparisonView,
  type DatasetStatsView,
  type FromDashboard,
  type ToDashboard,
} from '../core/base/dashboardProtocol';
import { BAND_WORDS, BANDS, bandBar, passRateHistogram, scatter } from './dashboardCharts';
import { button, el, pageRoot, pct, showNoticeIn, taskLink, onHostMessage } from './dom';
import { pagedList } from './pagedList';
import { count, dollars } from '../core/base/usageFormat';

interface VsCodeApi {
  postMessage(message: FromDashboard): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

type SortKey = 'file' | 'tasks' | 'failed' | 'errors' | 'learnable';

/** What survives the dashboard being hidden and shown again, and each redraw. */
interface DashState {
  pages: Record<string, number>;
  a?: string;
  b?: string;
  cell?: [number, number];
  sort: SortKey;
  desc: boolean;
  search: string;
}

const vscode = acquireVsCodeApi();
const root = pageRoot();
root.classList.add('dashboard');
const notice = el('div', 'notice');
notice.setAttribute('role', 'alert');
root.before(notice);
const busy = el('p', 'busy muted');
busy.setAttribute('role', 'status');
root.before(busy);

const saved = (vscode.getState() ?? {}) as Partial<DashState>;
const state: DashState = {
  pages: saved.pages && typeof saved.pages === 'object' ? { ...saved.pages } : {},
  ...(typeof saved.a === 'string' ? { a: saved.a } : {}),
  ...(typeof saved.b === 'string' ? { b: saved.b } : {}),
  sort: (['file', 'tasks', 'failed', 'errors', 'learnable'] as const).find((k) => k === saved.sort) ?? 'file',
  desc: saved.desc === true,
  search: typeof saved.search === 'string' ? saved.search : '',
};
const post = (m: FromDashboard): void => vscode.postMessage(m);
const save = (): void => vscode.setState(state);
const n = (x: number): string => x.toLocaleString('en-US');
const plural = (x: number, word: string): string => `${n(x)} ${word}${x === 1 ? '' : 's'}`;

let stats: DatasetStatsView | undefined;
let folder: string | undefined;
/** Counts the statistics received: a comparison is asked for again after each. */
let statsVersion = 0;
let comparison: ComparisonView | undefined;
/** The last comparison asked for, so a redraw does not ask twice. */
let requested = '';
/** Each section's element, so one section redraws without the others. */
const sections = new Map<string, HTMLElement>();

const showNotice = (level: 'info' | 'warning' | 'error', text: string): void => showNoticeIn(notice, level, text);

/** A task's name that opens it. */
const openLink = (file: string, task: string): HTMLElement =>
  taskLink(file, task, () => post({ type: 'open', file, task }));

function fileLink(file: string): HTMLElement {
  const b = el('button', 'link file-link', file);
  b.type = 'button';
  b.title = `Open ${file}`;
  b.addEventListener('click', () => post({ type: 'open', file }));
  return b;
}

function section(id: string, title: string, body: (HTMLElement | SVGElement | string)[]): HTMLElement {
  const d = el('details', `section ${id}`);
  d.open = true;
  d.dataset.section = id;
  const s = el('summary');
  s.append(el('h2', undefined, title));
  d.append(s);
  const b = el('div', 'body');
  b.append(...body);
  d.append(b);
  return d;
}

function setPage(id: string, page: number): void {
  state.pages[id] = page;
  save();
  redraw(id);
}

const page = (id: string): number => state.pages[id] ?? 0;

// --- Sections -------------------------------------------------------------------------------

function headerSection(s: DatasetStatsView): HTMLElement {
  const head = el('header');
  head.append(el('h1', undefined, folder ? `Dataset: ${folder}` : 'Dataset'));
  const t = s.totals;
  const parts = [
    plural(s.files, 'file'),
    plural(s.tasks, 'task'),
    `${plural(t.cases.total, 'case')}${t.cases.failed ? ` (${n(t.cases.failed)} failing)` : ''}`,
    plural(t.errors, 'error'),
    plural(Object.keys(s.models).length, 'model'),
  ];
  head.append(
    el('span', 'file summary-line', parts.join(' · ')),
    button('Refresh', 'refresh', () => post({ type: 'refresh' }), { className: 'refresh' }),
    button('Compare…', 'git-compare', () => post({ type: 'compareRuns' }), { className: 'compare-runs' }),
  );
  return head;
}

function cannotCell(count: number): HTMLElement {
  const td = el('td', 'num builtin-cannot', n(count));
  td.title =
    'Tasks the built-in demo model cannot do (it only does small arithmetic): its failures say nothing of them, so they are in no band';
  return td;
}

function modelsSection(s: DatasetStatsView): HTMLElement {
  const models = Object.entries(s.models);
  if (!models.length)
    return section('models', 'Bands per model', [
      el(
        'p',
        'muted',
        'No runs yet: run the tasks (▶ Run all in a file, or vtask run --model NAME) and their bands show here.',
      ),
    ]);
  const table = el('table', 'models-table');
  const head = el('tr');
  // The built-in demo model's runs of tasks it cannot do: a column of their own, in no band.
  const cannot = models.some(([, m]) => m.builtin_cannot);
  for (const h of [
    'Model',
    'Tasks run',
    'Samples',
    ...BANDS.map((b) => BAND_WORDS[b]),
    ...(cannot ? ['built-in cannot'] : []),
    'Signal',
    'Stale',
    'Tokens',
    'Cost',
    'Bands',
  ])
    head.append(el('th', undefined, h));
  table.append(el('thead'), el('tbody'));
  table.tHead?.append(head);
  const charts = el('div', 'charts');
  for (const [model, m] of models) {
    const row = el('tr', 'model-row');
    row.dataset.model = model;
    const stale = el('td', 'num stale-runs', n(m.stale ?? 0));
    stale.title =
      'Runs of an older version of the task (its prompt, verifier or sampling changed since), left out: run the tasks again';
    const tokens = el('td', 'num tokens', m.tokens ? `${count(m.tokens.prompt)} + ${count(m.tokens.completion)}` : '–');
    tokens.title = 'Prompt + completion tokens of these runs, as the endpoint reported them';
    const cost = el('td', 'num cost', m.cost === undefined ? '–' : dollars(m.cost));
    cost.title = "What these runs' tokens cost at the profile's price (a profile without `price` has none)";
    row.append(
      el('td', 'model-name', model),
      el('td', 'num', n(m.tasks)),
      el('td', 'num', n(m.samples)),
      ...BANDS.map((b) => el('td', `num band-count ${b}`, n(m.bands[b]))),
      ...(cannot ? [cannotCell(m.builtin_cannot ?? 0)] : []),
      el('td', 'num', pct(m.signal_share)),
      stale,
      tokens,
      cost,
    );
    const bar = el('td');
    bar.append(bandBar(m.bands));
    row.append(bar);
    table.tBodies[0]?.append(row);
    charts.append(passRateHistogram(model, m.histogram));
  }
  const changed = models.flatMap(([model, m]) => m.changed.map((c) => ({ model, ...c })));
  const body: HTMLElement[] = [table, charts];
  if (changed.length) {
    const list = pagedList({
      items: changed,
      page: page('changed'),
      onPage: (p) => {
        state.pages.changed = p;
        save();
        redraw('models');
      },
      className: 'changed-list',
      empty: '',
      render: (c) => {
        const li = el('li');
        li.append(
          openLink(c.file, c.task),
          el(
            'span',
            'muted',
            ` ${c.file} · ${c.model}: ${c.from ? BAND_WORDS[c.from] : 'none'} → ${c.to ? BAND_WORDS[c.to] : 'none'}`,
          ),
        );
        return li;
      },
    });
    body.push(el('h3', undefined, 'Changed band since the previous run'), list.element, list.pager);
  }
  return section('models', 'Bands per model', body);
}

/** The models as the compare section offers them, and the pair chosen (kept if still there). */
function chosenPair(models: readonly string[]): [string, string] | undefined {
  if (models.length < 2) return undefined;
  const a = state.a && models.includes(state.a) ? state.a : (models[0] as string);
  const b = state.b && models.includes(state.b) && state.b !== a ? state.b : (models.find((m) => m !== a) as string);
  return [a, b];
}

function compareSection(s: DatasetStatsView): HTMLElement {
  const models = Object.keys(s.models);
  const pair = chosenPair(models);
  if (!pair)
    return section('compare', 'Compare models', [
      el('p', 'muted', 'Run the tasks with two models (vtask run --model A --model B) to compare them.'),
    ]);
  const [a, b] = pair;
  const pick = (which: 'a' | 'b', value: string): HTMLSelectElement => {
    const sel = el('select', `model-${which}`);
    sel.setAttribute('aria-label', which === 'a' ? 'Model A' : 'Model B');
    for (const m of models) {
      const o = el('option', undefined, m);
      o.value = m;
      o.selected = m === value;
      sel.append(o);
    }
    sel.addEventListener('change', () => {
      state[which] = sel.value;
      state.cell = undefined;
      state.pages.separating = 0;
      state.pages.solve = 0;
      state.pages.fail = 0;
      save();
      redraw('compare');
    });
    return sel;
  };
  const tools = el('div', 'toolbar');
  tools.append(el('span', undefined, 'A'), pick('a', a), el('span', undefined, 'B'), pick('b', b));
  const want = {
    a,
    b,
    page: page('separating'),
    solvePage: page('solve'),
    failPage: page('fail'),
    ...(state.cell ? { cell: state.cell } : {}),
  };
  const key = JSON.stringify([
    statsVersion,
    want.a,
    want.b,
    want.cell ?? null,
    want.page,
    want.solvePage,
    want.failPage,
  ]);
  if (key !== requested) {
    requested = key;
    post({ type: 'compare', ...want });
  }
  // What the host last answered, while the answer to this request is on its way.
  const c = comparison?.a === a && comparison.b === b ? comparison : undefined;
  if (!c) return section('compare', 'Compare models', [tools, el('p', 'muted busy-compare', 'Comparing…')]);
  const chart = scatter(c, (i, j) => {
    state.cell = [i, j];
    state.pages.separating = 0;
    save();
    redraw('compare');
  });
  const cell = c.cell;
  const title = cell
    ? `Tasks with ${a} ${cell[0] * 10}–${cell[0] * 10 + 10}% and ${b} ${cell[1] * 10}–${cell[1] * 10 + 10}%`
    : 'Tasks separating them most';
  const heading = el('h3', undefined, title);
  if (cell)
    heading.append(
      ' ',
      button(
        'Show all',
        'close',
        () => {
          state.cell = undefined;
          state.pages.separating = 0;
          save();
          redraw('compare');
        },
        { className: 'link clear-cell' },
      ),
    );
  const list = pagedList({
    items: c.items,
    total: c.total,
    page: c.page,
    onPage: (p) => {
      state.pages.separating = p;
      save();
      redraw('compare');
    },
    className: 'separating',
    empty: cell ? 'No task in this square.' : 'No task was run by both models.',
    render: (p) => {
      const li = el('li');
      li.append(
        openLink(p.file, p.task),
        el('span', 'muted', ` ${p.file}`),
        el('span', 'rates', ` ${a} ${pct(p.a)} · ${b} ${pct(p.b)} · Δ ${pct(Math.abs(p.a - p.b))}`),
      );
      return li;
    },
  });
  const both = el(
    'p',
    'muted both',
    `${plural(c.tasks, 'task')} run by both: ${a} higher on ${n(c.a_higher)}, ${b} higher on ${n(c.b_higher)}.`,
  );
  return section('compare', 'Compare models', [
    tools,
    both,
    chart,
    heading,
    list.element,
    list.pager,
    ...agreed('solve', `Both always solve (pass rate 100% under ${a} and ${b})`, c.both_solve),
    ...agreed('fail', `Both never solve (pass rate 0% under ${a} and ${b})`, c.both_fail),
  ]);
}

/** A list of the tasks both models agree on (always or never solved), paged by the host. */
function agreed(id: 'solve' | 'fail', title: string, p: ComparisonView['both_solve']): HTMLElement[] {
  const list = pagedList({
    items: p.items,
    total: p.total,
    page: p.page,
    onPage: (to) => {
      state.pages[id] = to;
      save();
      redraw('compare');
    },
    className: `both-${id}`,
    empty: id === 'solve' ? 'No task both always solve.' : 'No task both never solve.',
    render: (r) => {
      const li = el('li');
      li.append(openLink(r.file, r.task), el('span', 'muted', ` ${r.file}`));
      return li;
    },
  });
  return [el('h3', `both-title ${id}`, `${title}: ${n(p.total)}`), list.element, list.pager];
}

function learnableShare(f: DatasetStatsView['per_file'][number], model: string | undefined): number {
  const c = model ? f.bands[model] : undefined;
  const total = c ? BANDS.reduce((x, b) => x + c[b], 0) : 0;
  return c && total ? c.learnable / total : -1;
}

/**
 * The model whose bands the files table shows: the one chosen first in the comparison, else the
 * one that ran the most tasks (not whichever comes first: its few runs would stand for the files).
 */
function filesModel(s: DatasetStatsView): string | undefined {
  const models = Object.keys(s.models);
  if (state.a && models.includes(state.a)) return state.a;
  return models.reduce<string | undefined>(
    (best, m) => (best === undefined || (s.models[m]?.tasks ?? 0) > (s.models[best]?.tasks ?? 0) ? m : best),
    undefined,
  );
}

function filesSection(s: DatasetStatsView): HTMLElement {
  const model = filesModel(s);
  const search = el('input', 'search file-search');
  search.type = 'search';
  search.placeholder = 'Filter files';
  search.setAttribute('aria-label', 'Filter files by path');
  search.value = state.search;
  search.addEventListener('input', () => {
    state.search = search.value;
    state.pages.files = 0;
    save();
    redrawTable();
  });
  const table = el('table', 'files-table');
  const pagerBox = el('div');
  const columns: [SortKey | undefined, string][] = [
    ['file', 'File'],
    ['tasks', 'Tasks'],
    [undefined, 'Kinds'],
    [undefined, 'Cases'],
    ['failed', 'Failing'],
    [undefined, 'Without cases'],
    ['errors', 'Errors'],
    ['learnable', model ? `Bands (${model})` : 'Bands'],
  ];
  const headRow = el('tr');
  for (const [key, label] of columns) {
    const th = el('th');
    if (key) {
      const b = el('button', 'link sort', `${label}${state.sort === key ? (state.desc ? ' ▾' : ' ▴') : ''}`);
      b.type = 'button';
      th.setAttribute('aria-sort', state.sort === key ? (state.desc ? 'descending' : 'ascending') : 'none');
      b.addEventListener('click', () => {
        state.desc = state.sort === key ? !state.desc : key !== 'file';
        state.sort = key;
        save();
        redraw('files');
      });
      th.append(b);
    } else th.textContent = label;
    headRow.append(th);
  }
  const thead = el('thead');
  thead.append(headRow);
  const value: Record<SortKey, (f: DatasetStatsView['per_file'][number]) => number | string> = {
    file: (f) => f.file,
    tasks: (f) => f.tasks,
    failed: (f) => f.cases.failed,
    errors: (f) => f.errors,
    learnable: (f) => learnableShare(f, model),
  };
  function redrawTable(): void {
    const q = state.search.toLowerCase();
    const rows = s.per_file.filter((f) => !q || f.file.toLowerCase().includes(q));
    const key = value[state.sort];
    rows.sort((x, y) => {
      const vx = key(x);
      const vy = key(y);
      const c = typeof vx === 'string' ? vx.localeCompare(vy as string) : vx - (vy as number);
      return (state.desc ? -c : c) || x.file.localeCompare(y.file);
    });
    const list = pagedList({
      items: rows,
      page: page('files'),
      onPage: (p) => {
        state.pages.files = p;
        save();
        redrawTable();
      },
      className: 'file-rows',
      tag: 'tbody',
      empty: q ? 'No file matches.' : 'No task files.',
      render: (f) => {
        const tr = el('tr', 'file-row');
        const name = el('td');
        name.append(fileLink(f.file));
        const kinds = Object.entries(f.kinds)
          .sort((x, y) => y[1] - x[1])
          .map(([k, c]) => `${k} ${c}`)
          .join(', ');
        const bands = el('td');
        const c = model ? f.bands[model] : undefined;
        if (c) bands.append(bandBar(c, 100));
        tr.append(
          name,
          el('td', 'num', n(f.tasks)),
          el('td', 'kinds', kinds),
          el('td', 'num', n(f.cases.total)),
          el('td', `num${f.cases.failed ? ' error-text' : ''}`, n(f.cases.failed)),
          el('td', 'num', n(f.tasks_without_cases)),
          el('td', `num${f.errors ? ' error-text' : ''}`, n(f.errors)),
          bands,
        );
        return tr;
      },
    });
    table.replaceChildren(thead, list.element);
    pagerBox.replaceChildren(list.pager);
  }
  redrawTable();
  const tools = el('div', 'toolbar');
  tools.append(search);
  return section('files', 'Files', [tools, table, pagerBox]);
}

/** Why the duplicates and contamination are empty or not final yet, when the host says. */
let findings: string | undefined;

function duplicatesSection(s: DatasetStatsView): HTMLElement {
  const list = pagedList({
    items: s.duplicates,
    page: page('duplicates'),
    onPage: (p) => setPage('duplicates', p),
    className: 'duplicates-list',
    empty: 'No duplicate prompts.',
    render: (d) => {
      const li = el('li', 'duplicate');
      li.append(
        openLink(d.a.file, d.a.task),
        el('span', 'muted', ` ${d.a.file} `),
        el('span', 'similarity', d.exact ? '= same prompt =' : `≈ ${pct(d.similarity)} similar ≈`),
        ' ',
        openLink(d.b.file, d.b.task),
        el('span', 'muted', ` ${d.b.file}`),
      );
      return li;
    },
  });
  const exact = s.duplicates.filter((d) => d.exact).length;
  const note = el('p', 'muted', findings ?? `${plural(s.duplicates.length, 'pair')} (${n(exact)} exact).`);
  return section('duplicates', 'Duplicates', [note, list.element, list.pager]);
}

function contaminationSection(s: DatasetStatsView): HTMLElement {
  const list = pagedList({
    items: s.contamination,
    page: page('contamination'),
    onPage: (p) => setPage('contamination', p),
    className: 'contamination-list',
    empty: 'No overlap with a benchmark (set vtask.contaminationBenchmarks to check).',
    render: (h) => {
      const li = el('li', 'hit');
      li.append(
        openLink(h.file, h.task),
        el('span', 'muted', ` ${h.file} · ${h.benchmark ?? 'benchmark'} row ${h.benchmark_row}: `),
        el('q', 'overlap', h.overlap),
      );
      return li;
    },
  });
  return section('contamination', 'Contamination', [list.element, list.pager]);
}

const RENDER: Record<string, (s: DatasetStatsView) => HTMLElement> = {
  header: headerSection,
  models: modelsSection,
  compare: compareSection,
  files: filesSection,
  duplicates: duplicatesSection,
  contamination: contaminationSection,
};

/** Redraws one section in place, keeping whether it is open. */
function redraw(id: string): void {
  const old = sections.get(id);
  const make = RENDER[id];
  if (!stats || !old || !make) return;
  const fresh = make(stats);
  if (old instanceof HTMLDetailsElement && fresh instanceof HTMLDetailsElement) fresh.open = old.open;
  old.replaceWith(fresh);
  sections.set(id, fresh);
}

function render(s: DatasetStatsView): void {
  stats = s;
  if (!sections.size) {
    root.replaceChildren();
    for (const [id, make] of Object.entries(RENDER)) {
      const e = make(s);
      sections.set(id, e);
      root.append(e);
    }
  } else for (const id of Object.keys(RENDER)) redraw(id);
}

function receive(msg: ToDashboard): void {
  switch (msg.type) {
    case 'stats':
      folder = msg.folder;
      findings = msg.findings;
      busy.textContent = '';
      statsVersion++;
      render(msg.stats);
      break;
    case 'comparison':
      comparison = msg.comparison;
      redraw('compare');
      break;
    case 'busy':
      busy.textContent = msg.text;
      break;
    case 'notice':
      showNotice(msg.level, msg.text);
      break;
  }
}

onHostMessage(toDashboard, receive, () =>
  showNotice('error', 'The dashboard received an update it could not read; press Refresh.'),
);

post({ type: 'ready' });
