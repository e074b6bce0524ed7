// The Compare Runs page: two runs of the dataset compared (`vtask diff`), drawn from the object
// the host sends: what the two sides are, counts per verifier kind, the tasks whose band flipped
// and the samples whose verdict flipped, each naming its task as a link that opens it. Long
// lists are shown a page at a time; every text from the files is set as text, never as HTML.
import { toDiff, type DatasetDiffView, type FromDiff, type ToDiff } from '../core/base/diffProtocol';
import { BAND_WORDS } from './dashboardCharts';
import { button, el, pageRoot, pct, showNoticeIn, taskLink, onHostMessage } from './dom';
import { pagedList } from './pagedList';

interface VsCodeApi {
  postMessage(message: FromDiff): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
const root = pageRoot();
root.classList.add('dashboard', 'diff-view');
const notice = el('div', 'notice');
notice.setAttribute('role', 'alert');
root.before(notice);
const busy = el('p', 'busy muted');
busy.setAttribute('role', 'status');
root.before(busy);

const post = (m: FromDiff): void => vscode.postMessage(m);
const n = (x: number): string => x.toLocaleString('en-US');
const plural = (x: number, word: string): string => `${n(x)} ${word}${x === 1 ? '' : 's'}`;
/** The page of each list, kept while the same comparison is shown. */
const pages: Record<string, number> = {};
let shown: { diff: DatasetDiffView; samples: boolean } | undefined;

const showNotice = (level: 'info' | 'warning' | 'error', text: string): void => showNoticeIn(notice, level, text);

/** A task's name that opens it. */
const openLink = (file: string, task: string): HTMLElement =>
  taskLink(file, task, () => post({ type: 'open', file, task }));

function section(id: string, title: string, body: HTMLElement[]): HTMLElement {
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

function header(d: DatasetDiffView): HTMLElement {
  const head = el('header');
  head.append(el('h1', undefined, 'Compare runs'));
  const sides = el('p', 'sides');
  sides.append(
    el('span', 'side-label', 'A'),
    el('span', 'side a', d.a),
    el('span', 'side-label', 'B'),
    el('span', 'side b', d.b),
  );
  const parts = [`${plural(d.tasks, 'task')} compared`, `${plural(d.flips, 'task')} flipped`];
  if (d.only_a || d.only_b) parts.push(`${n(d.only_a)} with a run of A only, ${n(d.only_b)} of B only`);
  head.append(
    sides,
    el('span', 'summary-line', parts.join(' · ')),
    button('Compare…', 'git-compare', () => post({ type: 'again' }), { className: 'refresh again' }),
  );
  return head;
}

function kindsSection(d: DatasetDiffView, samples: boolean): HTMLElement {
  const kinds = Object.entries(d.kinds).sort(([x], [y]) => x.localeCompare(y));
  if (!kinds.length)
    return section('kinds', 'Per verifier kind', [
      el('p', 'muted', 'No task has a run on both sides: run the tasks, or pick other sides.'),
    ]);
  const table = el('table', 'kinds-table');
  const head = el('tr');
  for (const h of ['Kind', 'Tasks', 'Band flips', ...(samples ? ['Sample flips'] : [])])
    head.append(el('th', undefined, h));
  table.append(el('thead'), el('tbody'));
  table.tHead?.append(head);
  for (const [kind, c] of kinds) {
    const row = el('tr', 'kind-row');
    row.dataset.kind = kind;
    row.append(
      el('td', 'kind', kind),
      el('td', 'num', n(c.tasks)),
      el('td', `num band-flips${c.band_flips ? ' flipped' : ''}`, n(c.band_flips)),
      ...(samples ? [el('td', `num sample-flips${c.sample_flips ? ' flipped' : ''}`, n(c.sample_flips))] : []),
    );
    table.tBodies[0]?.append(row);
  }
  return section('kinds', 'Per verifier kind', [table]);
}

function listSection<T>(
  id: string,
  title: string,
  items: readonly T[],
  empty: string,
  render: (item: T) => HTMLElement,
): HTMLElement {
  const list = pagedList({
    items,
    page: pages[id] ?? 0,
    onPage: (p) => {
      pages[id] = p;
      redraw();
    },
    render,
    className: `${id}-list`,
    empty,
  });
  return section(id, `${title} (${n(items.length)})`, [list.element, list.pager]);
}

function bandFlip(f: DatasetDiffView['band_flips'][number]): HTMLElement {
  const li = el('li', 'band-flip');
  li.append(
    openLink(f.file, f.task),
    el('span', 'muted', ` ${f.file} · ${f.kind} `),
    el('span', `band ${f.from}`, BAND_WORDS[f.from]),
    el('span', 'arrow', ' → '),
    el('span', `band ${f.to}`, BAND_WORDS[f.to]),
    el('span', 'rates muted', ` (${pct(f.pass_rate_a)} → ${pct(f.pass_rate_b)})`),
  );
  return li;
}

function sampleFlip(f: DatasetDiffView['sample_flips'][number]): HTMLElement {
  const li = el('li', 'sample-flip');
  li.append(
    openLink(f.file, f.task),
    el('span', 'muted', ` ${f.file} · ${f.kind} · sample ${f.sample + 1} `),
    el('span', `outcome ${f.from}`, f.from),
    el('span', 'arrow', ' → '),
    el('span', `outcome ${f.to}`, f.to),
  );
  return li;
}

function redraw(): void {
  if (!shown) return;
  const { diff: d, samples } = shown;
  // A redraw (a page of a list) keeps the sections the user closed closed.
  const open = new Map<string | undefined, boolean>();
  root.querySelectorAll('details.section').forEach((e) => {
    if (e instanceof HTMLDetailsElement) open.set(e.dataset.section, e.open);
  });
  const parts = [
    header(d),
    kindsSection(d, samples),
    listSection('band-flips', 'Tasks whose band flipped', d.band_flips, 'No task changed band.', bandFlip),
  ];
  for (const side of ['a', 'b'] as const) {
    const unread = d.unread?.filter((u) => u.side === side) ?? [];
    if (unread.length)
      parts.push(
        listSection(`unread-${side}`, `Files ${side.toUpperCase()} (${d[side]}) has no version of`, unread, '', (u) =>
          el('li', 'unread', `${u.file}: ${u.reason}`),
        ),
      );
  }
  if (samples)
    parts.push(
      listSection('sample-flips', 'Samples whose verdict flipped', d.sample_flips, 'No verdict flipped.', sampleFlip),
    );
  else
    parts.push(
      el(
        'p',
        'muted no-samples',
        'Runs of the log keep bands, not verdicts: compare a git revision with the working tree to see samples flip.',
      ),
    );
  for (const e of parts) if (e instanceof HTMLDetailsElement) e.open = open.get(e.dataset.section) ?? true;
  root.replaceChildren(...parts);
}

function receive(msg: ToDiff): void {
  switch (msg.type) {
    case 'diff':
      busy.textContent = '';
      notice.replaceChildren();
      for (const k of Object.keys(pages)) delete pages[k];
      shown = { diff: msg.diff, samples: msg.samples };
      redraw();
      break;
    case 'busy':
      busy.textContent = msg.text;
      break;
    case 'notice':
      busy.textContent = '';
      showNotice(msg.level, msg.text);
      break;
  }
}

onHostMessage(toDiff, receive, () =>
  showNotice('error', 'The page received a comparison it could not read; compare again.'),
);

post({ type: 'ready' });
