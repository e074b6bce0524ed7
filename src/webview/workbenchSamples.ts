// The workbench's samples view: the cached samples of the tasks the query shows (or of the
// selection), filtered by state (failed, flipped since the verifier before, undecided, errored)
// and grouped by reason, each group with its count, collapsible, and paged by the host (a
// group of 100,000 samples makes 50 rows). A sample links to its task and to the task panel;
// a group, or the samples ticked, can be added as cases of their tasks.
import type { RowSet } from '../core/base/rowSet';
import { button, el, icon } from './dom';
import { pagedList, PAGE_SIZE } from './pagedList';
import type { FromWorkbench, ToWorkbench } from '../core/base/workbenchProtocol';
import type { ListedSampleMessage, SampleStateMessage } from '../core/base/workbenchSamplesProtocol';

/** What survives the page being hidden and shown again. */
export interface SamplesViewState {
  state: SampleStateMessage;
  /** The groups shown open, and the page each is on. */
  open: Record<string, number>;
}

export const initialSamplesState = (): SamplesViewState => ({ state: 'all', open: {} });

/** A saved state, each part checked: a state from an older page must not break this one. */
export function restoreSamplesState(raw: unknown): SamplesViewState {
  const s = initialSamplesState();
  if (typeof raw !== 'object' || raw === null) return s;
  const state: unknown = Reflect.get(raw, 'state');
  const known = STATES.find((x) => x.id === state);
  if (known) s.state = known.id;
  const open: unknown = Reflect.get(raw, 'open');
  if (typeof open === 'object' && open !== null)
    for (const [k, v] of Object.entries(open)) if (Number.isInteger(v) && v >= 0) s.open[k] = v;
  return s;
}

const STATES: readonly { readonly id: SampleStateMessage; readonly label: string; readonly title: string }[] = [
  { id: 'all', label: 'All', title: 'Every cached sample' },
  { id: 'failed', label: 'Failed', title: 'The verifier decided: fail' },
  {
    id: 'flipped',
    label: 'Flipped',
    title: 'The verdict differs from the one the verifier before the last change gave',
  },
  { id: 'undecided', label: 'Undecided', title: 'The verifier could not decide (unavailable, refused)' },
  { id: 'errored', label: 'Errored', title: 'The verifier timed out or crashed' },
];

type Summary = Extract<ToWorkbench, { type: 'samples' }>;
const num = (x: number): string => x.toLocaleString('en-US');

export class WorkbenchSamples {
  readonly element = el('div', 'wb-samples');
  private readonly toolbar = el('div', 'toolbar sample-states');
  private readonly scope = el('span', 'scope');
  private readonly notes = el('div', 'sample-notes');
  private readonly list = el('div', 'sample-groups');
  private readonly counts = new Map<SampleStateMessage, HTMLElement>();
  private readonly addTicked: HTMLButtonElement;
  private readonly tickedCount = el('span', 'ticked');
  private seq = 0;
  private summary: Summary | undefined;
  /** Samples of the open groups' pages, by group. */
  private readonly items = new Map<string, readonly ListedSampleMessage[]>();
  /** Samples ticked, by id (of the collection shown). */
  private readonly ticked = new Set<number>();

  constructor(
    private readonly post: (m: FromWorkbench) => void,
    private readonly state: SamplesViewState,
    private readonly onState: () => void,
    /** The table's selected rows: the samples of these tasks when any. */
    private readonly selection: () => RowSet,
  ) {
    const states = el('div', 'filters');
    states.setAttribute('role', 'radiogroup');
    states.setAttribute('aria-label', 'Show samples');
    for (const s of STATES) {
      const b = button(s.label, undefined, () => this.setState(s.id), { className: 'filter' });
      b.title = s.title;
      b.dataset.state = s.id;
      b.setAttribute('role', 'radio');
      const count = el('span', 'state-count');
      b.append(count);
      this.counts.set(s.id, count);
      states.append(b);
    }
    const reload = button('Read again', 'refresh', () => this.request(true), { className: 'reload-samples' });
    reload.title = 'Read the samples from the cache again and verify them with the verifiers as they are now';
    this.addTicked = button('Add ticked as cases…', 'add', () => this.addCases({ ids: [...this.ticked] }), {
      className: 'add-ticked',
    });
    this.addTicked.disabled = true;
    this.toolbar.append(states, this.scope, reload, this.addTicked, this.tickedCount);
    this.notes.setAttribute('role', 'status');
    this.element.append(this.toolbar, this.notes, this.list);
    this.markStates();
  }

  /** Asks for the samples of the view's tasks (or the selection's); `fresh` reads them again. */
  request(fresh = false): void {
    const rows = this.selection();
    this.scope.textContent = rows.size ? `of the ${num(rows.size)} selected tasks` : 'of the tasks matching';
    this.list.replaceChildren(el('p', 'empty', 'Reading the samples…'));
    this.post({
      type: 'samples',
      seq: ++this.seq,
      state: this.state.state,
      ...(rows.size ? { rows: rows.encode() } : {}),
      ...(fresh ? { fresh: true } : {}),
    });
  }

  receive(msg: Extract<ToWorkbench, { type: 'samples' | 'sampleItems' | 'casesAdded' }>): void {
    switch (msg.type) {
      case 'samples':
        if (msg.seq !== this.seq) return;
        if (this.summary?.collection !== msg.collection) this.ticked.clear();
        this.summary = msg;
        this.items.clear();
        this.draw();
        break;
      case 'sampleItems':
        if (msg.seq !== this.seq) return;
        this.items.set(msg.group, msg.items);
        this.draw();
        break;
      case 'casesAdded':
        this.ticked.clear();
        this.draw();
        break;
    }
  }

  private setState(s: SampleStateMessage): void {
    this.state.state = s;
    this.state.open = {};
    this.onState();
    this.markStates();
    this.request();
  }

  private markStates(): void {
    for (const [id, count] of this.counts) {
      const b = count.parentElement;
      if (!b) continue;
      const on = id === this.state.state;
      b.classList.toggle('active', on);
      b.setAttribute('aria-checked', String(on));
      b.tabIndex = on ? 0 : -1;
    }
  }

  private addCases(what: { group?: string; ids?: number[] }): void {
    if (!this.summary) return;
    this.post({ type: 'addCases', collection: this.summary.collection, ...what });
  }

  /** Asks for the page of an open group. */
  private fetch(group: string): void {
    if (!this.summary) return;
    const start = (this.state.open[group] ?? 0) * PAGE_SIZE;
    this.post({
      type: 'sampleWindow',
      seq: this.seq,
      collection: this.summary.collection,
      group,
      start,
      end: start + PAGE_SIZE,
    });
  }

  private draw(): void {
    const s = this.summary;
    if (!s) return;
    for (const [id, count] of this.counts) count.textContent = ` ${num(s.counts[id] ?? 0)}`;
    this.notes.replaceChildren(...s.notes.map((n) => el('div', 'notice warning', n)));
    this.tickedCount.textContent = this.ticked.size ? `${num(this.ticked.size)} ticked` : '';
    this.addTicked.disabled = this.ticked.size === 0;
    if (!s.groups.length) {
      this.list.replaceChildren(
        el(
          'p',
          'empty',
          s.total
            ? `No sample is ${this.state.state} among ${num(s.total)}.`
            : 'No cached samples for these tasks: run them (Run… on a selection) to sample them.',
        ),
      );
      return;
    }
    this.list.replaceChildren(...s.groups.map((g) => this.group(g.key, g.count)));
  }

  private group(key: string, count: number): HTMLElement {
    const open = key in this.state.open;
    const section = el('section', 'sample-group');
    section.dataset.group = key;
    const head = el('div', 'group-head');
    const toggle = button(key, open ? 'chevron-down' : 'chevron-right', () => {
      if (open) delete this.state.open[key];
      else this.state.open[key] = 0;
      this.onState();
      this.draw();
      if (!open) this.fetch(key);
    });
    toggle.className = 'group-toggle';
    toggle.setAttribute('aria-expanded', String(open));
    toggle.append(el('span', 'group-count', num(count)));
    const add = button('Add as cases…', 'add', () => this.addCases({ group: key }), { className: 'add-group' });
    add.title = `Add the ${num(count)} samples of this group as cases of their tasks`;
    head.append(toggle, add);
    section.append(head);
    if (!open) return section;
    const page = this.state.open[key] ?? 0;
    const items = this.items.get(key);
    if (!items) {
      section.append(el('p', 'muted', 'Loading…'));
      return section;
    }
    const { element, pager } = pagedList({
      items,
      total: count,
      page,
      onPage: (p) => {
        this.state.open[key] = p;
        this.onState();
        this.items.delete(key);
        this.draw();
        this.fetch(key);
      },
      render: (x) => this.row(x),
      className: 'sample-rows',
      empty: 'No samples.',
    });
    section.append(element, pager);
    return section;
  }

  private row(s: ListedSampleMessage): HTMLElement {
    const li = el('li', `sample-row ${s.error ? 'error' : s.pass ? 'pass' : 'fail'}`);
    li.dataset.id = String(s.id);
    const tick = el('input', 'tick');
    tick.type = 'checkbox';
    tick.checked = this.ticked.has(s.id);
    tick.setAttribute('aria-label', `Tick ${s.task} sample #${s.index + 1}`);
    tick.addEventListener('change', () => {
      if (tick.checked) this.ticked.add(s.id);
      else this.ticked.delete(s.id);
      this.tickedCount.textContent = this.ticked.size ? `${num(this.ticked.size)} ticked` : '';
      this.addTicked.disabled = this.ticked.size === 0;
    });
    const task = button(
      s.task,
      undefined,
      () => this.post({ type: 'openSample', row: s.row, index: s.index, where: 'task' }),
      {
        className: 'link open-task',
      },
    );
    task.title = `Open ${s.file} at the task`;
    const inPanel = button(
      `#${s.index + 1}`,
      undefined,
      () => this.post({ type: 'openSample', row: s.row, index: s.index, where: 'panel' }),
      {
        className: 'link open-panel',
      },
    );
    inPanel.title = `Open the task in the task panel: sample #${s.index + 1} of ${s.model}`;
    const head = el('div', 'sample-head');
    head.append(
      icon(s.error ? 'warning' : s.pass ? 'pass' : 'error'),
      tick,
      task,
      inPanel,
      el('span', 'model', s.model),
    );
    if (s.flip) head.append(el('span', `flip ${s.flip}`, s.flip === 'gained' ? 'fail → pass' : 'pass → fail'));
    if (s.truncated) head.append(el('span', 'tag', 'cut at max_tokens'));
    head.append(el('span', 'reason', s.reason));
    li.append(head, el('div', 'preview', s.preview || '(empty answer)'));
    return li;
  }
}
