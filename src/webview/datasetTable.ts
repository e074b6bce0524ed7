import { button, el, icon, pct } from './dom';
import type { DatasetInfoView, FromDataset, RowResultView, RowView } from '../core/base/datasetProtocol';

/** Every row has this height, so any row can be placed without measuring: virtualised. */
export const TABLE_ROW_HEIGHT = 30;
/** Rows rendered above and below the visible ones, so fast scrolling shows no gaps. */
const OVERSCAN = 8;
/** Rows asked for at once, aligned: a scroll asks for each block once. */
const BLOCK = 100;
/**
 * The tallest list the page makes: browsers stop laying out near 33 million pixels (about
 * 1.1 million rows). A longer dataset scrolls a list this tall, mapped onto all its rows.
 */
export const MAX_LIST_PX = 15_000_000;
/** Blocks kept in the page; those farthest from the view are dropped beyond this. */
const BLOCKS_KEPT = 40;

/**
 * Where a list scrolled by `viewport` is among all its rows (`rowsPx` tall, shown in a list
 * `listPx` tall): the scroll position, stretched when the list is shorter than the rows (the
 * first and last positions still show the first and last rows).
 */
export function rowsTopOf(viewport: HTMLElement, rowsPx: number, listPx: number): number {
  const scroll = viewport.scrollTop;
  if (listPx === rowsPx) return scroll;
  const view = viewport.clientHeight;
  return (scroll * (rowsPx - view)) / Math.max(1, listPx - view);
}

/** Scrolls so that the rows start `top` pixels down (the inverse of rowsTopOf). */
export function scrollRowsTo(viewport: HTMLElement, top: number, rowsPx: number, listPx: number): void {
  const view = viewport.clientHeight;
  viewport.scrollTop = listPx === rowsPx ? top : (top * (listPx - view)) / Math.max(1, rowsPx - view);
}

/** What survives the view being hidden and shown again. */
export interface TableState {
  scrollTop: number;
  selected?: number;
}

/**
 * The rows of a dataset: a header and a virtualised list. Only the rows in view exist in the
 * page; rows not read yet show a placeholder and are asked of the host a block at a time.
 * Every cell is set with textContent: dataset text is never parsed as HTML.
 */
export class DatasetTable {
  readonly element = el('div', 'dataset-table');
  private readonly viewport = el('div', 'dataset-rows');
  private readonly spacer = el('div', 'spacer');
  private readonly blocks = new Map<number, RowView[]>();
  private readonly pending = new Set<number>();
  private readonly results = new Map<number, RowResultView>();
  private readonly running = new Set<number>();
  private readonly errors = new Map<number, string>();
  private readonly runnable: boolean;
  private drawn = '';
  /** The height of all rows, and of the list that scrolls them (smaller beyond MAX_LIST_PX). */
  private readonly rowsPx: number;
  private readonly listPx: number;

  constructor(
    private readonly info: DatasetInfoView,
    private readonly state: TableState,
    private readonly post: (m: FromDataset) => void,
    private readonly onState: () => void,
  ) {
    this.runnable = info.format !== undefined;
    // A dataset vtask knows has fixed columns (panel.css, narrower in a narrow editor); another
    // file as many as it has.
    if (this.runnable) this.element.classList.add('runnable');
    else
      this.element.style.setProperty(
        '--columns',
        `4.5em repeat(${Math.max(1, info.columns.length)}, minmax(6em, 1fr))`,
      );
    this.element.setAttribute('role', 'grid');
    this.element.setAttribute('aria-rowcount', String(info.rows + 1));
    this.element.setAttribute('aria-label', 'Dataset rows');
    const head = el('div', 'dataset-row dataset-head');
    head.setAttribute('role', 'row');
    head.setAttribute('aria-rowindex', '1');
    const headers = ['#', ...info.columns, ...(this.runnable ? ['Pass rate', 'Actions'] : [])];
    for (const h of headers) {
      const c = el('div', 'cell', h);
      c.setAttribute('role', 'columnheader');
      head.append(c);
    }
    this.viewport.tabIndex = 0;
    this.viewport.setAttribute('aria-label', `${info.rows} rows`);
    if (this.runnable)
      this.viewport.setAttribute('aria-keyshortcuts', 'ArrowUp ArrowDown PageUp PageDown Home End Enter R');
    this.rowsPx = info.rows * TABLE_ROW_HEIGHT;
    this.listPx = Math.min(this.rowsPx, MAX_LIST_PX);
    this.spacer.style.height = `${this.listPx}px`;
    this.viewport.append(this.spacer);
    this.viewport.addEventListener('scroll', () => {
      this.state.scrollTop = this.viewport.scrollTop;
      this.draw();
      this.onState();
    });
    this.viewport.addEventListener('keydown', (e) => this.key(e));
    this.element.append(head, this.viewport);
  }

  /** After the element is in the page: fill the window's height and restore the scroll. */
  attached(): void {
    this.fit();
    window.addEventListener('resize', () => this.fit());
    this.viewport.scrollTop = this.state.scrollTop;
    this.drawn = '';
    this.draw();
  }

  /** Rows the host sent for a window. */
  addRows(rows: readonly RowView[]): void {
    for (const r of rows) {
      const b = Math.floor(r.n / BLOCK);
      this.pending.delete(b);
      const block = this.blocks.get(b) ?? [];
      block[r.n - b * BLOCK] = r;
      this.blocks.set(b, block);
    }
    this.drawn = '';
    this.draw();
  }

  /** A row's run started or ended. */
  setRun(n: number, running: boolean, result?: RowResultView, error?: string): void {
    if (running) this.running.add(n);
    else this.running.delete(n);
    if (result) this.results.set(n, result);
    if (error) this.errors.set(n, error);
    else if (running) this.errors.delete(n);
    this.drawn = '';
    this.draw();
  }

  private fit(): void {
    const top = this.viewport.getBoundingClientRect().top;
    this.viewport.style.height = `${Math.max(6 * TABLE_ROW_HEIGHT, window.innerHeight - top - 12)}px`;
    this.drawn = '';
    this.draw();
  }

  /**
   * Where the view is among all rows: the scroll position, stretched when the list is shorter
   * than the rows (the first and last positions still show the first and last rows).
   */
  private get rowsTop(): number {
    return rowsTopOf(this.viewport, this.rowsPx, this.listPx);
  }

  /** Scrolls so that the rows start `top` pixels down (the inverse of rowsTop). */
  private scrollRowsTo(top: number): void {
    scrollRowsTo(this.viewport, top, this.rowsPx, this.listPx);
  }

  /** Renders the rows in view and asks for the blocks they need; does nothing when unchanged. */
  private draw(): void {
    const top = this.rowsTop;
    const height = this.viewport.clientHeight || 600;
    const first = Math.max(0, Math.floor(top / TABLE_ROW_HEIGHT) - OVERSCAN);
    const last = Math.min(this.info.rows, Math.ceil((top + height) / TABLE_ROW_HEIGHT) + OVERSCAN);
    this.request(first, last);
    // A stretched list places rows relative to the scroll position: every scroll moves them.
    const key = `${first}:${last}:${this.state.selected}:${this.listPx === this.rowsPx ? '' : this.viewport.scrollTop}`;
    if (key === this.drawn) return;
    this.drawn = key;
    // Keep the focus on a row's button across a redraw (a run's result redraws its row).
    const focused =
      document.activeElement instanceof HTMLElement && this.spacer.contains(document.activeElement)
        ? document.activeElement.dataset.key
        : undefined;
    const rows: HTMLElement[] = [];
    for (let n = first; n < last; n++) rows.push(this.row(n));
    this.spacer.replaceChildren(...rows);
    if (focused) this.spacer.querySelector<HTMLElement>(`[data-key="${CSS.escape(focused)}"]`)?.focus();
    if (this.state.selected !== undefined && this.state.selected >= first && this.state.selected < last)
      this.viewport.setAttribute('aria-activedescendant', `row-${this.state.selected}`);
    else this.viewport.removeAttribute('aria-activedescendant');
  }

  /** Asks for the blocks of rows first..last that are neither here nor asked for. */
  private request(first: number, last: number): void {
    if (last <= first) return;
    for (let b = Math.floor(first / BLOCK); b * BLOCK < last; b++) {
      if (this.blocks.has(b) || this.pending.has(b)) continue;
      this.pending.add(b);
      this.post({ type: 'window', start: b * BLOCK, end: Math.min(this.info.rows, (b + 1) * BLOCK) });
    }
    // Rows far from the view are dropped: scrolling through 100,000 rows keeps a few thousand.
    if (this.blocks.size > BLOCKS_KEPT) {
      const here = Math.floor(first / BLOCK);
      const far = [...this.blocks.keys()].sort((a, b) => Math.abs(b - here) - Math.abs(a - here));
      for (const b of far.slice(0, this.blocks.size - BLOCKS_KEPT)) this.blocks.delete(b);
    }
  }

  private row(n: number): HTMLElement {
    const data = this.blocks.get(Math.floor(n / BLOCK))?.[n % BLOCK];
    const r = el('div', 'dataset-row');
    r.id = `row-${n}`;
    r.dataset.n = String(n);
    r.setAttribute('role', 'row');
    r.setAttribute('aria-rowindex', String(n + 2));
    r.style.top = `${n * TABLE_ROW_HEIGHT - this.rowsTop + this.viewport.scrollTop}px`;
    if (n === this.state.selected) r.classList.add('selected');
    r.append(cell(String(n), 'num'));
    if (!data) {
      r.classList.add('loading');
      r.append(cell('…', 'muted'));
      return r;
    }
    for (const text of data.cells) r.append(cell(text));
    if (!this.runnable) return r;
    if (data.error) {
      const last = r.lastElementChild as HTMLElement;
      last.textContent = `cannot be a task: ${data.error}`;
      last.title = last.textContent;
      last.className = 'cell error-text';
    }
    r.append(this.resultCell(n, data), this.actions(n, data));
    r.addEventListener('click', () => this.select(n));
    return r;
  }

  private resultCell(n: number, data: RowView): HTMLElement {
    const c = el('div', 'cell result');
    c.setAttribute('role', 'gridcell');
    const result = this.results.get(n) ?? data.result;
    const error = this.errors.get(n);
    if (this.running.has(n)) c.append(icon('loading codicon-modifier-spin'), ' sampling…');
    else if (error) {
      c.append(icon('warning'), ' error');
      c.title = error;
      c.classList.add('error-text');
    } else if (result) {
      c.append(el('span', 'rate', pct(result.passRate)));
      // A run of the demo model on a task it cannot do has no band worth showing: it says so instead.
      if (result.note) c.append(' ', el('span', 'band demo-note', 'demo model: cannot do this task'));
      else if (result.band) c.append(' ', el('span', `band ${result.band}`, result.band.replace('_', ' ')));
      c.title =
        result.note ??
        (result.source === 'file'
          ? 'pass rate the export recorded'
          : `pass rate of ${result.samples ?? '?'} samples just now`);
      if (result.source === 'file') c.classList.add('recorded');
    } else c.append(el('span', 'muted', '—'));
    return c;
  }

  private actions(n: number, data: RowView): HTMLElement {
    const c = el('div', 'cell actions-cell');
    c.setAttribute('role', 'gridcell');
    if (data.error) return c;
    const run = button('Run verifier', 'play', () => this.post({ type: 'run', n }), { className: 'run' });
    run.dataset.key = `run:${n}`;
    // Its label hides in a narrow editor (see panel.css): the name stays for screen readers.
    run.setAttribute('aria-label', 'Run verifier');
    run.title = 'Run verifier (R)';
    run.disabled = this.running.has(n);
    const open = button('Open in panel', 'go-to-file', () => this.post({ type: 'open', n }), {
      iconOnly: true,
      className: 'open',
    });
    open.dataset.key = `open:${n}`;
    c.append(run, open);
    return c;
  }

  private select(n: number | undefined): void {
    this.state.selected = n;
    this.drawn = '';
    this.draw();
    this.onState();
  }

  private key(e: KeyboardEvent): void {
    if (e.target !== this.viewport || this.info.rows === 0) return;
    const at = this.state.selected ?? -1;
    const page = Math.max(1, Math.floor(this.viewport.clientHeight / TABLE_ROW_HEIGHT) - 1);
    const moves: Record<string, number> = {
      ArrowDown: at + 1,
      ArrowUp: at - 1,
      PageDown: at + page,
      PageUp: at - page,
      Home: 0,
      End: this.info.rows - 1,
    };
    const to = moves[e.key];
    if (to !== undefined) {
      e.preventDefault();
      const next = Math.min(this.info.rows - 1, Math.max(0, to));
      const y = next * TABLE_ROW_HEIGHT;
      const top = this.rowsTop;
      if (y < top) this.scrollRowsTo(y);
      else if (y + TABLE_ROW_HEIGHT > top + this.viewport.clientHeight)
        this.scrollRowsTo(y + TABLE_ROW_HEIGHT - this.viewport.clientHeight);
      this.select(next);
      return;
    }
    const n = this.state.selected;
    if (n === undefined || !this.runnable) return;
    if (e.key === 'Enter') this.post({ type: 'open', n });
    else if (e.key === 'r' || e.key === 'R') this.post({ type: 'run', n });
    else return;
    e.preventDefault();
  }
}

/** A cell of text: set as text, clipped by CSS, the whole (already clipped) text as tooltip. */
function cell(text: string, className?: string): HTMLElement {
  const c = el('div', className ? `cell ${className}` : 'cell', text);
  c.setAttribute('role', 'gridcell');
  if (text.length > 20) c.title = text;
  return c;
}
