import { button, el, icon } from './dom';
import { applyQuery, filterCounts, FILTERS, SORTS, type ListQuery, type SampleFilter, type SampleSort } from './filter';
import type { FromPanel, SampleView } from '../core/base/panelProtocol';
import { trajectoryElement } from './trajectory';

/** Every row has this height, so the list can place any row without measuring: virtualised. */
export const ROW_HEIGHT = 52;
const MAX_LIST_HEIGHT = 360;
/** Rows rendered above and below the visible ones, so fast scrolling shows no gaps. */
const OVERSCAN = 6;

export interface ListState extends Mutable<ListQuery> {
  /** Index (sample index, not position) of the selected sample. */
  selected?: number;
  scrollTop: number;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

export const initialListState = (): ListState => ({ filter: 'all', sort: 'index', search: '', scrollTop: 0 });

/**
 * The samples: filter buttons with counts, sort, search, a virtualised list (only the rows in
 * view exist in the page, so 1,000 samples cost what 20 do) and the selected sample in full.
 */
export class SampleList {
  readonly element = el('div', 'samples');
  private readonly toolbar = el('div', 'toolbar');
  private readonly viewport = el('div', 'sample-list');
  private readonly spacer = el('div', 'spacer');
  private readonly detail = el('div', 'detail');
  private readonly counts = new Map<SampleFilter, HTMLElement>();
  private shown: SampleView[] = [];
  private samples: SampleView[] = [];
  private drawn = '';

  constructor(
    private readonly task: string,
    private readonly state: ListState,
    private readonly post: (m: FromPanel) => void,
    private readonly onState: () => void,
    /** False for a dataset row: samples cannot become its cases. */
    private readonly canAddCases = true,
  ) {
    this.buildToolbar();
    this.viewport.tabIndex = 0;
    // Keys that keep the focus here when the panel is rendered again (see render in main.ts).
    this.viewport.dataset.path = 'samples:list';
    this.viewport.setAttribute('role', 'listbox');
    this.viewport.setAttribute('aria-label', 'Samples');
    this.viewport.append(this.spacer);
    this.viewport.addEventListener('scroll', () => {
      this.state.scrollTop = this.viewport.scrollTop;
      this.draw();
      this.onState();
    });
    this.viewport.addEventListener('keydown', (e) => this.key(e));
    this.element.append(this.toolbar, this.viewport, this.detail);
  }

  /** Every sample the list holds, whatever the filter. */
  get all(): readonly SampleView[] {
    return this.samples;
  }

  /** Replaces the samples (a new run, a re-verification) or adds streamed ones. */
  set(samples: readonly SampleView[]): void {
    this.samples = [...samples];
    this.refresh();
  }

  add(samples: readonly SampleView[]): void {
    const byIndex = new Map(this.samples.map((s) => [s.index, s]));
    for (const s of samples) byIndex.set(s.index, s);
    this.samples = [...byIndex.values()];
    this.refresh();
  }

  /** After the element is in the page: restore the scroll position (it needs a layout). */
  attached(): void {
    this.viewport.scrollTop = this.state.scrollTop;
    this.draw();
  }

  private buildToolbar(): void {
    const filters = el('div', 'filters');
    filters.setAttribute('role', 'radiogroup');
    filters.setAttribute('aria-label', 'Show');
    for (const f of FILTERS) {
      const b = button(f.label, undefined, () => this.setFilter(f.id), { className: 'filter' });
      b.dataset.filter = f.id;
      b.dataset.path = `filter:${f.id}`;
      b.setAttribute('role', 'radio');
      const count = el('span', 'count');
      b.append(count);
      this.counts.set(f.id, count);
      filters.append(b);
    }
    // A radio group is one tab stop; arrow keys move the choice, as in VS Code's own toolbars.
    filters.addEventListener('keydown', (e) => {
      const step =
        e.key === 'ArrowRight' || e.key === 'ArrowDown' ? 1 : e.key === 'ArrowLeft' || e.key === 'ArrowUp' ? -1 : 0;
      if (!step) return;
      e.preventDefault();
      const at = FILTERS.findIndex((f) => f.id === this.state.filter);
      const next = FILTERS[(at + step + FILTERS.length) % FILTERS.length];
      if (!next) return;
      this.setFilter(next.id);
      (this.counts.get(next.id)?.parentElement as HTMLElement | undefined)?.focus();
    });
    const sort = el('select', 'sort');
    sort.setAttribute('aria-label', 'Sort');
    sort.dataset.path = 'samples:sort';
    for (const s of SORTS) sort.append(new Option(s.label, s.id, false, s.id === this.state.sort));
    sort.addEventListener('change', () => {
      this.state.sort = sort.value as SampleSort;
      this.refresh();
    });
    const search = el('input', 'search');
    search.type = 'search';
    search.placeholder = 'Search answers and reasons';
    search.setAttribute('aria-label', 'Search samples');
    search.dataset.path = 'samples:search';
    search.value = this.state.search;
    search.addEventListener('input', () => {
      this.state.search = search.value;
      this.refresh();
    });
    this.toolbar.append(filters, sort, search);
  }

  private setFilter(f: SampleFilter): void {
    this.state.filter = f;
    this.state.scrollTop = 0;
    this.viewport.scrollTop = 0;
    this.refresh();
  }

  private refresh(): void {
    this.shown = applyQuery(this.samples, this.state);
    const counts = filterCounts(this.samples);
    for (const [f, span] of this.counts) {
      span.textContent = ` ${counts[f]}`;
      const b = span.parentElement as HTMLElement;
      b.setAttribute('aria-checked', String(f === this.state.filter));
      b.tabIndex = f === this.state.filter ? 0 : -1;
      b.classList.toggle('active', f === this.state.filter);
    }
    this.spacer.style.height = `${this.shown.length * ROW_HEIGHT}px`;
    // A short list takes only the room it needs; a long one scrolls inside a fixed height.
    this.viewport.style.height = `${Math.min(MAX_LIST_HEIGHT, Math.max(2, this.shown.length) * ROW_HEIGHT + 2)}px`;
    this.drawn = '';
    this.draw();
    this.showDetail();
    this.onState();
  }

  /** Renders the rows in view; does nothing when the same rows are already there. */
  private draw(): void {
    const top = this.viewport.scrollTop;
    const height = this.viewport.clientHeight || 400;
    const first = Math.max(0, Math.floor(top / ROW_HEIGHT) - OVERSCAN);
    const last = Math.min(this.shown.length, Math.ceil((top + height) / ROW_HEIGHT) + OVERSCAN);
    const key = `${first}:${last}:${this.state.selected}`;
    if (key === this.drawn) return;
    this.drawn = key;
    const rows: HTMLElement[] = [];
    for (let i = first; i < last; i++) rows.push(this.row(this.shown[i] as SampleView, i));
    this.spacer.replaceChildren(...rows);
    // Screen readers follow the selection while the focus stays on the list.
    if (rows.some((r) => r.id === `sample-${this.state.selected}`))
      this.viewport.setAttribute('aria-activedescendant', `sample-${this.state.selected}`);
    else this.viewport.removeAttribute('aria-activedescendant');
    if (this.shown.length === 0)
      this.spacer.replaceChildren(
        el('p', 'muted', this.samples.length ? 'No sample matches.' : 'No samples yet: Resample to ask the model.'),
      );
  }

  private row(s: SampleView, position: number): HTMLElement {
    const r = el('div', `sample ${s.error ? 'error' : s.pass ? 'pass' : 'fail'}`);
    r.style.top = `${position * ROW_HEIGHT}px`;
    r.setAttribute('role', 'option');
    r.setAttribute('aria-selected', String(s.index === this.state.selected));
    r.dataset.index = String(s.index);
    r.id = `sample-${s.index}`;
    if (s.index === this.state.selected) r.classList.add('selected');
    const head = el('div', 'sample-head');
    head.append(
      icon(s.error ? 'warning' : s.pass ? 'pass' : 'error'),
      el('span', 'num', `#${s.index + 1}`),
      el('span', 'score', s.score.toFixed(2)),
    );
    if (s.flip) head.append(el('span', `flip ${s.flip}`, s.flip === 'gained' ? 'fail → pass' : 'pass → fail'));
    if (s.truncated) head.append(el('span', 'tag', 'cut at max_tokens'));
    if (s.trajectory)
      head.append(el('span', `tag${s.trajectory.stop === 'final' ? '' : ' stopped'}`, trajectoryTag(s.trajectory)));
    head.append(el('span', 'reason', s.reason));
    const preview = el('div', 'preview', oneLine(s));
    r.append(head, preview);
    r.addEventListener('click', () => this.select(s.index));
    return r;
  }

  /** Selects a sample and scrolls to it (a link from elsewhere); a filter that hides it is set to all. */
  reveal(index: number): void {
    if (!this.shown.some((s) => s.index === index)) this.setFilter('all');
    const at = this.shown.findIndex((s) => s.index === index);
    if (at === -1) return;
    this.viewport.scrollTop = Math.max(0, (at - 1) * ROW_HEIGHT);
    this.state.scrollTop = this.viewport.scrollTop;
    this.select(index);
  }

  private select(index: number | undefined): void {
    this.state.selected = index;
    this.drawn = '';
    this.draw();
    this.showDetail();
    this.onState();
  }

  private key(e: KeyboardEvent): void {
    if (this.shown.length === 0) return;
    const at = this.shown.findIndex((s) => s.index === this.state.selected);
    const page = Math.max(1, Math.floor((this.viewport.clientHeight || 400) / ROW_HEIGHT));
    const moves: Record<string, number> = {
      ArrowDown: at + 1,
      ArrowUp: at - 1,
      PageDown: at + page,
      PageUp: at - page,
      Home: 0,
      End: this.shown.length - 1,
    };
    const to = moves[e.key];
    if (to === undefined) return;
    e.preventDefault();
    const next = Math.min(this.shown.length - 1, Math.max(0, at === -1 && e.key === 'ArrowDown' ? 0 : to));
    const y = next * ROW_HEIGHT;
    if (y < this.viewport.scrollTop) this.viewport.scrollTop = y;
    else if (y + ROW_HEIGHT > this.viewport.scrollTop + this.viewport.clientHeight)
      this.viewport.scrollTop = y + ROW_HEIGHT - this.viewport.clientHeight;
    this.select(this.shown[next]?.index);
  }

  private showDetail(): void {
    const s = this.samples.find((x) => x.index === this.state.selected);
    if (!s) {
      this.detail.replaceChildren();
      return;
    }
    const head = el('div', 'detail-head');
    head.append(
      icon(s.error ? 'warning' : s.pass ? 'pass' : 'error'),
      el(
        'strong',
        undefined,
        `Sample #${s.index + 1}: ${s.error ? `verifier ${s.error}` : s.pass ? 'pass' : 'fail'} · score ${s.score.toFixed(3)}`,
      ),
    );
    if (s.cached) head.append(el('span', 'tag', 'cached'));
    const actions = el('div', 'actions');
    if (this.canAddCases) {
      actions.append(
        el(
          'span',
          'muted',
          s.trajectory
            ? `Add as case with its ${s.trajectory.calls} call${s.trajectory.calls === 1 ? '' : 's'}:`
            : 'Add as case:',
        ),
        button('expect pass', 'check', () =>
          this.post({ type: 'addCase', task: this.task, sample: s.index, expect: 'pass' }),
        ),
        button('expect fail', 'close', () =>
          this.post({ type: 'addCase', task: this.task, sample: s.index, expect: 'fail' }),
        ),
      );
    }
    const parts: HTMLElement[] = [head, el('p', 'reason', s.reason)];
    if (s.reasoning) {
      const d = el('details', 'reasoning');
      d.append(el('summary', undefined, 'Reasoning'), el('pre', undefined, s.reasoning));
      parts.push(d);
    }
    if (s.trajectory) parts.push(trajectoryElement(s.trajectory), el('div', 'turn-head', 'Final answer'));
    parts.push(answerText(s));
    if (s.clipped) parts.push(el('p', 'muted', 'The answer is longer than shown here; the verifier read all of it.'));
    parts.push(actions);
    this.detail.replaceChildren(...parts);
  }
}

function trajectoryTag(t: NonNullable<SampleView['trajectory']>): string {
  const calls = `${t.calls} call${t.calls === 1 ? '' : 's'}`;
  return t.stop === 'final' ? calls : `${calls}, ${t.stop === 'max_turns' ? 'turn limit' : 'environment error'}`;
}

function oneLine(s: SampleView): string {
  const t = s.text.replace(/\s+/g, ' ').trim();
  return t.length > 300 ? `${t.slice(0, 300)}…` : t || '(empty answer)';
}

/** The answer with the span the verifier read highlighted, all as text nodes. */
function answerText(s: SampleView): HTMLElement {
  const pre = el('pre', 'answer');
  const [a, b] = s.answer ?? [-1, -1];
  if (a >= 0 && b <= s.text.length && a < b)
    pre.append(s.text.slice(0, a), el('mark', undefined, s.text.slice(a, b)), s.text.slice(b));
  else pre.textContent = s.text;
  return pre;
}
