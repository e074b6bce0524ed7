// The task panel: renders what the extension sends and posts what the author does. Model and
// user text is only ever set as text (textContent), never parsed as HTML.
import { passAtKCurve, histogram } from './charts';
import { button, el, icon, pageRoot, pct, showNoticeIn, onHostMessage } from './dom';
import { renderForm } from './form';
import { toPanel, type FromPanel, type SampleView, type TaskView, type ToPanel } from '../core/base/panelProtocol';
import { FILTERS, SORTS } from './filter';
import { initialListState, SampleList, type ListState } from './sampleList';

interface VsCodeApi {
  postMessage(message: FromPanel): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

/** What survives the panel being hidden and shown again (the page is then rebuilt). */
interface SavedState {
  task?: TaskView;
  list: ListState;
  open: Record<string, boolean>;
}

const vscode = acquireVsCodeApi();
const root = pageRoot();
const status = el('div', 'status');
status.setAttribute('role', 'status');
status.setAttribute('aria-live', 'polite');
/** Samples so far while sampling, beside what the host said it is doing. */
const progress = el('span', 'progress');
const notice = el('div', 'notice');
notice.setAttribute('role', 'alert');
root.before(status, notice);

const state: SavedState = restore();
let list: SampleList | undefined;

function restore(): SavedState {
  const raw = vscode.getState() as Partial<SavedState> | undefined;
  const task = raw?.task && toPanel.safeParse({ type: 'task', task: raw.task });
  return {
    task: task && task.success && task.data.type === 'task' ? task.data.task : undefined,
    list: restoreList(raw?.list),
    open: raw?.open ?? {},
  };
}

/**
 * setState serialises the whole state, the task's samples included (megabytes with long
 * answers), so it is written once changes settle, not on every scroll event or keystroke;
 * and at once when the page goes away.
 */
const SAVE_DELAY_MS = 200;
let saveTimer: ReturnType<typeof setTimeout> | undefined;
const flush = (): void => {
  clearTimeout(saveTimer);
  saveTimer = undefined;
  vscode.setState(state);
};
/** The list's saved state, each part checked: a state from an older panel must not break it. */
function restoreList(raw: Partial<ListState> | undefined): ListState {
  const l = initialListState();
  if (FILTERS.some((f) => f.id === raw?.filter)) l.filter = raw?.filter as ListState['filter'];
  if (SORTS.some((x) => x.id === raw?.sort)) l.sort = raw?.sort as ListState['sort'];
  if (typeof raw?.search === 'string') l.search = raw.search;
  if (typeof raw?.scrollTop === 'number' && Number.isFinite(raw.scrollTop)) l.scrollTop = raw.scrollTop;
  if (Number.isInteger(raw?.selected)) l.selected = raw?.selected;
  return l;
}

const save = (): void => {
  clearTimeout(saveTimer);
  saveTimer = setTimeout(flush, SAVE_DELAY_MS);
};
window.addEventListener('pagehide', () => {
  if (saveTimer !== undefined) flush();
});
const post = (m: FromPanel): void => vscode.postMessage(m);

/** A collapsible section whose open state is remembered per title. */
function section(
  title: string,
  id: string,
  open = true,
): { box: HTMLElement; body: HTMLElement; summary: HTMLElement } {
  const box = el('details', 'section');
  box.open = state.open[id] ?? open;
  box.addEventListener('toggle', () => {
    state.open[id] = box.open;
    save();
  });
  const summary = el('summary');
  summary.append(el('h2', undefined, title));
  const body = el('div', 'body');
  box.append(summary, body);
  root.append(box);
  return { box, body, summary };
}

/** Fields typed into since they last committed. */
const uncommitted = new WeakSet<EventTarget>();
document.addEventListener('input', (e) => e.target && uncommitted.add(e.target), true);
document.addEventListener('change', (e) => e.target && uncommitted.delete(e.target), true);

function render(task: TaskView): void {
  // Keep keyboard focus where it was: after an edit the form comes back re-rendered.
  const active = document.activeElement as HTMLElement | null;
  const focused = active?.dataset?.path;
  // Text typed into a field and not committed yet (fields commit on Enter or blur) is kept too.
  const draft =
    (active instanceof HTMLInputElement || active instanceof HTMLTextAreaElement) &&
    uncommitted.has(active) &&
    document.hasFocus()
      ? active.value
      : undefined;
  if (state.task?.id !== task.id)
    state.list = { ...initialListState(), filter: state.list.filter, sort: state.list.sort };
  state.task = task;
  save();
  root.replaceChildren();
  const head = el('header');
  head.append(el('h1', undefined, task.id), el('span', 'file', task.file));
  root.append(head);
  if (task.readOnly) root.append(el('p', 'notice info read-only', task.readOnly));

  const prompt = section('Prompt, as the model sees it', 'prompt', true);
  for (const m of task.messages) {
    const box = el('div', `message ${m.role}`);
    box.append(el('div', 'role', m.role), el('pre', 'content', m.content));
    prompt.body.append(box);
  }

  const verifier = section(`Verifier: ${task.verifier.kind}`, 'verifier');
  verifier.body.append(
    el('p', 'summary', task.verifier.summary),
    renderForm(task.form, task.id, post, task.readOnly !== undefined),
  );

  // A row has no cases, and cannot be given any.
  if (task.readOnly === undefined) {
    renderCases(task);
    renderAudit(task);
  }
  renderSamples(task);
  const again = focused ? document.querySelector<HTMLElement>(`[data-path="${CSS.escape(focused)}"]`) : null;
  again?.focus();
  if (
    again &&
    draft !== undefined &&
    (again instanceof HTMLInputElement || again instanceof HTMLTextAreaElement) &&
    again.value !== draft
  ) {
    // Typed in as the author would (setting .value would not count as an edit: Enter or
    // leaving the field would then not commit it).
    again.select();
    if (!document.execCommand('insertText', false, draft)) again.value = draft;
  }
}

/** Gives an element a key under which render() puts the focus back after a re-render. */
function keyed<T extends HTMLElement>(e: T, key: string): T {
  e.dataset.path = key;
  return e;
}

function renderCases(task: TaskView): void {
  const cases = section(`Cases (${task.cases.length})`, 'cases');
  cases.body.append(
    keyed(
      button('Run cases', 'play', () => post({ type: 'runCases' })),
      'action:run-cases',
    ),
  );
  const ol = el('ol', 'cases');
  for (const c of task.cases) {
    const item = el('li', c.ok === undefined ? 'case' : c.ok ? 'case ok' : 'case bad');
    item.tabIndex = 0;
    const verdict = c.actual === undefined ? `expect ${c.expected}` : `expected ${c.expected}, got ${c.actual}`;
    const line = el('div', 'verdict');
    if (c.ok !== undefined) line.append(icon(c.ok ? 'pass' : 'error'));
    line.append(c.name ? `${verdict} · ${c.name}` : verdict);
    item.append(line, el('pre', 'response', c.response));
    if (c.reason) item.append(el('div', 'reason', c.reason));
    item.addEventListener('click', () => post({ type: 'revealCase', index: c.index }));
    item.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') post({ type: 'revealCase', index: c.index });
    });
    ol.append(item);
  }
  cases.body.append(ol);
}

/** The audit: findings of the probes, and suspects among the samples, each of which can become a case. */
function renderAudit(task: TaskView): void {
  const a = task.audit;
  const s = section(
    a
      ? `Audit (${a.findings.length} finding${a.findings.length === 1 ? '' : 's'}, ${a.suspects.length} suspect${a.suspects.length === 1 ? '' : 's'})`
      : 'Audit',
    'audit',
    a !== undefined,
  );
  s.body.append(
    keyed(
      button(a ? 'Audit again' : 'Run audit', 'shield', () => post({ type: 'audit', task: task.id })),
      'action:audit',
    ),
  );
  if (!a) {
    s.body.append(
      el(
        'p',
        'hint',
        'Probes the verifier with answers it must fail (empty, hedged, wrong of the right shape, exploits) or pass (the right answer written another way), and looks among the samples for verdicts another reading would flip. No model is asked.',
      ),
    );
    return;
  }
  s.body.append(el('p', 'hint', `${a.probes} probes.${a.skipped.length ? ` Skipped: ${a.skipped.join('; ')}` : ''}`));
  const findings = el('ol', 'audit-findings');
  for (const f of a.findings) {
    const item = el('li', `finding ${f.severity}`);
    const head = el('div', 'verdict');
    head.append(
      el('span', `severity ${f.severity}`, f.severity),
      ` ${f.probe}: expected ${f.expected}, got ${f.verdict}`,
    );
    item.append(head, el('div', 'reason', f.reason));
    // An agent task's probe is a trajectory: its calls come before the final answer.
    if (f.calls !== undefined) item.append(el('pre', 'response calls', `calls: ${f.calls}`));
    item.append(el('pre', 'response', f.response.trim() ? f.response : f.response ? '(whitespace only)' : '(empty)'));
    if (f.isCase) item.append(el('p', 'muted', 'Already a case of the task.'));
    else
      item.append(
        keyed(
          button(`Add as case (expect ${f.expected})`, 'add', () =>
            post({ type: 'addProbeCase', task: task.id, probe: f.probe }),
          ),
          `action:probe:${f.probe}`,
        ),
      );
    findings.append(item);
  }
  // The verifiers that close what was found, as the editor's quick fixes offer them.
  if (a.fixes?.length) {
    const fixes = el('div', 'actions audit-fixes');
    for (const title of a.fixes)
      fixes.append(
        keyed(
          button(title, 'wrench', () => post({ type: 'applyFix', task: task.id, title })),
          `action:fix:${title}`,
        ),
      );
    s.body.append(fixes);
  }
  if (!a.findings.length) findings.append(el('li', 'finding none', 'No probe got a wrong verdict.'));
  s.body.append(findings);
  if (a.suspects.length) {
    const suspects = el('ol', 'audit-suspects');
    for (const x of a.suspects) {
      const item = el('li', `suspect ${x.kind}`);
      const what = x.kind === 'false-negative' ? `failed, but passes read as ${x.reading}` : `passed, but ${x.reading}`;
      item.append(el('div', 'verdict', `Sample #${x.sample + 1} ${what}`), el('div', 'reason', x.reason));
      // The author judges the sample: a false negative is a right answer, a false positive a wrong one.
      const expect = x.kind === 'false-negative' ? 'pass' : 'fail';
      item.append(
        keyed(
          button(`Add sample as case (expect ${expect})`, 'add', () =>
            post({ type: 'addCase', task: task.id, sample: x.sample, expect }),
          ),
          `action:suspect:${x.sample}`,
        ),
      );
      suspects.append(item);
    }
    s.body.append(suspects);
  }
}

/** What streamed samples update before the run's statistics arrive with the finished run. */
let streaming: { title: HTMLElement; charts: HTMLElement } | undefined;

/** `Samples (3/4 pass · 1 undecided)`: a sample without a verdict is counted apart, never as a fail. */
function samplesTitle(samples: readonly SampleView[]): string {
  const undecided = samples.filter((x) => x.error).length;
  return samples.length
    ? `Samples (${samples.filter((x) => x.pass).length}/${samples.length - undecided} pass${undecided ? ` · ${undecided} undecided` : ''})`
    : 'Samples';
}

function renderSamples(task: TaskView): void {
  const run = task.run;
  const s = section(samplesTitle(task.samples), 'samples');
  streaming = { title: s.summary.querySelector('h2') as HTMLElement, charts: el('div', 'charts') };
  const bar = el('div', 'actions');
  bar.append(
    keyed(
      button('Resample', 'refresh', () => post({ type: 'sample', task: task.id, mode: 'resample' })),
      'action:resample',
    ),
    keyed(
      button('More samples', 'add', () => post({ type: 'sample', task: task.id, mode: 'more' })),
      'action:more',
    ),
  );
  s.body.append(bar);
  if (run && run.stats.samples + run.stats.undecided === 0 && !run.error) {
    // Resample replaces the samples: until the first arrives there is nothing to count.
    s.body.append(el('p', 'muted sampling', 'Sampling… the pass rate shows as samples arrive.'), streaming.charts);
  } else if (run) {
    const st = run.stats;
    const summary = el('div', 'run-summary');
    const band = el('span', `band ${st.band}`, st.band.replace('_', ' '));
    summary.append(
      el(
        'span',
        undefined,
        `${st.passed}/${st.samples} pass${st.undecided ? ` · ${st.undecided} undecided` : ''} · pass@1 ${st.passRate.toFixed(2)} (95% ${pct(st.interval[0])}–${pct(st.interval[1])}) · mean score ${st.meanScore.toFixed(2)} · `,
      ),
      band,
      el('span', 'muted', ` · GRPO signal ${pct(st.signalShare)} of groups of ${st.groupSize} · ${run.model}`),
    );
    if (run.flips && (run.flips.gained || run.flips.lost))
      summary.append(
        el(
          'span',
          'flips',
          ` · since the last verifier: ${run.flips.gained} fail → pass, ${run.flips.lost} pass → fail`,
        ),
      );
    if (!run.fresh) summary.append(el('span', 'stale', ' · the task changed since these samples were verified'));
    if (run.error) summary.append(el('div', 'error-text', run.error));
    if (run.note) summary.append(el('div', 'notice warning demo-note', `Not a band of this task: ${run.note}.`));
    streaming.charts.append(histogram(task.samples), passAtKCurve(st));
    s.body.append(summary, streaming.charts);
  } else {
    if (task.samples.length === 0)
      s.body.append(
        el('p', 'muted', 'No samples yet. Resample asks the model; cached samples from ▶ Run verifier show here.'),
      );
    s.body.append(streaming.charts);
  }
  list = new SampleList(task.id, state.list, post, save, task.readOnly === undefined);
  list.set(task.samples);
  s.body.append(list.element);
  list.attached();
}

const showNotice = (level: 'info' | 'warning' | 'error', text: string): void => showNoticeIn(notice, level, text);

function receive(msg: ToPanel): void {
  switch (msg.type) {
    case 'task':
      // A notice stays while the same task is re-rendered (an edit's outcome comes with one).
      if (state.task?.id !== msg.task.id) notice.replaceChildren();
      render(msg.task);
      break;
    case 'empty':
      state.task = undefined;
      save();
      root.replaceChildren(el('p', 'empty', msg.reason));
      break;
    case 'samples':
      if (state.task?.id === msg.task && (!msg.uri || msg.uri === state.task.uri) && list) {
        list.add(msg.samples);
        progress.textContent = ` ${msg.done}/${msg.total}`;
        if (streaming) {
          streaming.title.textContent = samplesTitle(list.all);
          // The histogram follows as samples arrive; pass@k comes with the finished run.
          streaming.charts.replaceChildren(histogram(list.all));
          const note = root.querySelector('.sampling');
          if (note)
            note.textContent = `Sampling… ${list.all.filter((x) => x.pass).length}/${list.all.length} pass so far.`;
        }
      }
      break;
    case 'busy':
      status.replaceChildren();
      progress.textContent = '';
      if (msg.what) {
        status.append(icon('loading codicon-modifier-spin'), ` ${msg.what}`, progress);
        if (msg.cancellable) status.append(button('Cancel', 'close', () => post({ type: 'cancel' })));
      }
      break;
    case 'notice':
      showNotice(msg.level, msg.text);
      break;
    case 'selectSample':
      if (state.task?.id === msg.task) list?.reveal(msg.index);
      break;
  }
}

onHostMessage(toPanel, receive, () =>
  showNotice('error', 'The panel received an update it could not read; it may be out of date. Reopen it to refresh.'),
);

if (state.task) render(state.task);
post({ type: 'ready' });
