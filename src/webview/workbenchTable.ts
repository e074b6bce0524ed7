// The workbench's table: every task of a dataset, virtualised (only the rows in view exist in the
// page), sorted by a click on a header, columns resized by dragging their edge, rows selected by
// click, shift-click and ctrl/cmd-click. Rows come from the host in windows of the current view;
// every cell is set as text.
import { RowSet } from '../core/base/rowSet';
import { el, pct } from './dom';
import { MAX_LIST_PX, rowsTopOf } from './datasetTable';
import type { FromWorkbench, SortMessage, WorkbenchRowMessage } from '../core/base/workbenchProtocol';

/** Every row has this height, so any row is placed without measuring. */
export const WORKBENCH_ROW_HEIGHT = 28;
const OVERSCAN = 8;
/** Positions asked for at once, aligned. */
const BLOCK = 100;
const BLOCKS_KEPT = 40;
/** The narrowest a column is dragged to. */
const MIN_WIDTH = 40;

type Run = NonNullable<WorkbenchRowMessage['runs'][number]>;

/** A column: its header, its key to sort by (none: not sortable), its width and its cell. */
interface ColumnDef {
  readonly key: string;
  readonly label: string;
  readonly sort?: string;
  readonly width: number;
  readonly cell: (r: WorkbenchRowMessage) => string;
  readonly className?: string;
}

/** What survives the page being hidden and shown again. */
export interface WorkbenchState {
  query: string;
  sort?: SortMessage;
  widths: Record<string, number>;
  /** The model whose band, signal, samples, tokens and cost are shown. */
  model?: string;
}

const num = (x: number): string => x.toLocaleString('en-US');
const bandText = (b: string): string => b.replace('_', ' ');

/** The columns for a dataset with these models: a rate per model, then the details of `model`. */
export function columnsFor(models: readonly string[], model: string | undefined): ColumnDef[] {
  const m = model === undefined ? -1 : models.indexOf(model);
  const of = (r: WorkbenchRowMessage): Run | null | undefined => (m < 0 ? undefined : r.runs[m]);
  const detail = (key: string, label: string, text: (x: Run) => string, width = 80): ColumnDef => ({
    key,
    label,
    width,
    className: 'n',
    ...(m >= 0 ? { sort: `${key}:${model}` } : {}),
    cell: (r) => {
      const x = of(r);
      return x ? text(x) : '';
    },
  });
  return [
    { key: 'id', label: 'Task id', sort: 'id', width: 160, cell: (r) => r.id },
    // A Parquet row is named by its row number, as `vtask import` names it; a text file's by its line.
    {
      key: 'file',
      label: 'File',
      sort: 'file',
      width: 140,
      cell: (r) => (/\.parquet$/i.test(r.file) ? `${r.file} · row ${r.line}` : `${r.file}:${r.line + 1}`),
    },
    {
      key: 'kind',
      label: 'Kind',
      sort: 'kind',
      width: 90,
      cell: (r) => (r.error ? 'not a task' : (r.kind ?? 'invalid')),
    },
    { key: 'prompt', label: 'Prompt', sort: 'prompt', width: 300, cell: (r) => r.error ?? r.prompt },
    {
      key: 'cases',
      label: 'Cases',
      sort: 'cases',
      width: 90,
      className: 'n',
      cell: (r) =>
        r.cases === 0
          ? ''
          : r.casesFailed < 0
            ? `${r.cases}`
            : r.casesFailed
              ? `${r.cases} · ${r.casesFailed} fail`
              : `${r.cases} ✓`,
    },
    ...models.map((name, i): ColumnDef => ({
      key: `rate:${name}`,
      label: name,
      sort: `rate:${name}`,
      width: 110,
      className: 'rate',
      cell: (r) => {
        const x = r.runs[i];
        return x ? (x.band === 'error' ? 'error' : `${pct(x.rate)} ${bandText(x.band)}`) : '';
      },
    })),
    detail('signal', 'Signal', (x) => (x.signal === null ? '' : pct(x.signal))),
    detail('samples', 'Samples', (x) => (x.samples < 0 ? '' : num(x.samples))),
    detail('tokens', 'Tokens', (x) => (x.tokens === undefined ? '' : num(x.tokens))),
    detail('cost', 'Cost', (x) => (x.cost === undefined ? '' : `$${x.cost.toFixed(4)}`)),
    {
      key: 'findings',
      label: 'Findings',
      sort: 'findings',
      width: 80,
      className: 'n',
      cell: (r) => (r.findings < 0 ? '' : String(r.findings)),
    },
    { key: 'label', label: 'Label', sort: 'label', width: 110, cell: (r) => r.label ?? '' },
  ];
}

/** The table of the current view. `size` rows; rows are asked of the host by position. */
export class WorkbenchTable {
  readonly element = el('div', 'workbench-table');
  private readonly head = el('div', 'wb-row wb-head');
  private readonly viewport = el('div', 'wb-rows');
  private readonly spacer = el('div', 'spacer');
  private blocks = new Map<number, WorkbenchRowMessage[]>();
  private pending = new Set<number>();
  private size = 0;
  private seq = 0;
  private columns: ColumnDef[] = [];
  private rowsPx = 0;
  private listPx = 0;
  private drawn = '';
  /** Selected rows, by row number (stable across views), as runs: "all matching" may be millions. */
  readonly selected = new RowSet();
  /** The position a shift-click selects from. */
  private anchor: number | undefined;

  constructor(
    private readonly models: readonly string[],
    private readonly state: WorkbenchState,
    private readonly post: (m: FromWorkbench) => void,
    private readonly onChange: () => void,
  ) {
    this.element.setAttribute('role', 'grid');
    this.element.setAttribute('aria-multiselectable', 'true');
    this.head.setAttribute('role', 'row');
    this.viewport.tabIndex = 0;
    this.viewport.append(this.spacer);
    this.viewport.addEventListener('scroll', () => this.draw());
    this.element.append(this.head, this.viewport);
    this.setColumns();
  }

  /** Draws the headers (after the model shown changed). */
  setColumns(): void {
    this.columns = columnsFor(this.models, this.state.model);
    this.head.replaceChildren(...this.columns.map((c) => this.header(c)));
    this.applyWidths();
    this.drawn = '';
    this.draw();
  }

  private header(c: ColumnDef): HTMLElement {
    const h = el('div', `cell${c.sort ? ' sortable' : ''}`);
    h.setAttribute('role', 'columnheader');
    h.dataset.key = c.key;
    const sorted = c.sort !== undefined && this.state.sort?.column === c.sort;
    h.setAttribute('aria-sort', sorted ? (this.state.sort?.descending ? 'descending' : 'ascending') : 'none');
    h.append(el('span', 'label', c.label));
    if (sorted) h.append(el('span', 'arrow', this.state.sort?.descending ? ' ▼' : ' ▲'));
    if (c.sort) {
      const key = c.sort;
      h.title = `Sort by ${c.label}`;
      h.addEventListener('click', (e) => {
        if ((e.target as HTMLElement).classList.contains('resize')) return;
        const same = this.state.sort?.column === key;
        this.state.sort = { column: key, descending: same ? !this.state.sort?.descending : false };
        this.setColumns();
        this.onChange();
      });
    }
    const grip = el('div', 'resize');
    grip.setAttribute('aria-hidden', 'true');
    grip.addEventListener('pointerdown', (e) => this.resize(e, c, grip));
    h.append(grip);
    return h;
  }

  /** Dragging a header's right edge sets its column's width. */
  private resize(e: PointerEvent, c: ColumnDef, grip: HTMLElement): void {
    e.preventDefault();
    e.stopPropagation();
    const start = e.clientX;
    const from = this.state.widths[c.key] ?? c.width;
    grip.setPointerCapture(e.pointerId);
    const move = (m: PointerEvent): void => {
      this.state.widths[c.key] = Math.max(MIN_WIDTH, Math.round(from + m.clientX - start));
      this.applyWidths();
    };
    const up = (): void => {
      grip.removeEventListener('pointermove', move);
      grip.removeEventListener('pointerup', up);
      this.onChange();
    };
    grip.addEventListener('pointermove', move);
    grip.addEventListener('pointerup', up);
  }

  private applyWidths(): void {
    this.element.style.setProperty(
      '--columns',
      this.columns.map((c) => `${this.state.widths[c.key] ?? c.width}px`).join(' '),
    );
  }

  /** A new view of `size` rows (numbered `seq`): the rows held are dropped. */
  setView(seq: number, size: number): void {
    this.seq = seq;
    this.size = size;
    this.blocks = new Map();
    this.pending = new Set();
    this.anchor = undefined;
    this.rowsPx = size * WORKBENCH_ROW_HEIGHT;
    this.listPx = Math.min(this.rowsPx, MAX_LIST_PX);
    this.spacer.style.height = `${this.listPx}px`;
    this.element.setAttribute('aria-rowcount', String(size + 1));
    this.viewport.scrollTop = 0;
    this.fit();
  }

  /** Rows of view `seq` from position `start`. */
  addRows(seq: number, start: number, rows: readonly WorkbenchRowMessage[]): void {
    if (seq !== this.seq) return;
    rows.forEach((r, i) => {
      const at = start + i;
      const b = Math.floor(at / BLOCK);
      this.pending.delete(b);
      const block = this.blocks.get(b) ?? [];
      block[at - b * BLOCK] = r;
      this.blocks.set(b, block);
    });
    this.drawn = '';
    this.draw();
  }

  /** Rows the host says to select (a range, or all the view's). */
  addSelection(rows: RowSet): void {
    this.selected.addAll(rows);
    this.redraw();
  }

  clearSelection(): void {
    this.selected.clear();
    this.redraw();
  }

  /** After the element is in the page: fill the window's height. */
  fit(): void {
    const top = this.viewport.getBoundingClientRect().top;
    this.viewport.style.height = `${Math.max(6 * WORKBENCH_ROW_HEIGHT, window.innerHeight - top - 8)}px`;
    this.redraw();
  }

  private redraw(): void {
    this.drawn = '';
    this.draw();
    this.onChange();
  }

  private draw(): void {
    const top = rowsTopOf(this.viewport, this.rowsPx, this.listPx);
    const height = this.viewport.clientHeight || 600;
    const first = Math.max(0, Math.floor(top / WORKBENCH_ROW_HEIGHT) - OVERSCAN);
    const last = Math.min(this.size, Math.ceil((top + height) / WORKBENCH_ROW_HEIGHT) + OVERSCAN);
    this.request(first, last);
    const key = `${first}:${last}:${this.listPx === this.rowsPx ? '' : this.viewport.scrollTop}`;
    if (key === this.drawn) return;
    this.drawn = key;
    const rows: HTMLElement[] = [];
    for (let at = first; at < last; at++) rows.push(this.row(at, top));
    this.spacer.replaceChildren(...rows);
  }

  private request(first: number, last: number): void {
    for (let b = Math.floor(first / BLOCK); b * BLOCK < last; b++) {
      if (this.blocks.has(b) || this.pending.has(b)) continue;
      this.pending.add(b);
      this.post({ type: 'window', seq: this.seq, start: b * BLOCK, end: Math.min(this.size, (b + 1) * BLOCK) });
    }
    if (this.blocks.size > BLOCKS_KEPT) {
      const here = Math.floor(first / BLOCK);
      const far = [...this.blocks.keys()].sort((a, b) => Math.abs(b - here) - Math.abs(a - here));
      for (const b of far.slice(0, this.blocks.size - BLOCKS_KEPT)) this.blocks.delete(b);
    }
  }

  private row(at: number, top: number): HTMLElement {
    const data = this.blocks.get(Math.floor(at / BLOCK))?.[at % BLOCK];
    const r = el('div', 'wb-row');
    r.setAttribute('role', 'row');
    r.setAttribute('aria-rowindex', String(at + 2));
    r.dataset.at = String(at);
    r.style.top = `${at * WORKBENCH_ROW_HEIGHT - top + this.viewport.scrollTop}px`;
    if (!data) {
      r.classList.add('loading');
      r.append(el('div', 'cell muted', '…'));
      return r;
    }
    r.dataset.n = String(data.n);
    r.id = `wb-row-${data.n}`;
    const selected = this.selected.has(data.n);
    r.setAttribute('aria-selected', String(selected));
    if (selected) r.classList.add('selected');
    if (data.error) r.classList.add('bad');
    for (const c of this.columns) {
      const text = c.cell(data);
      const cell = el('div', c.className ? `cell ${c.className}` : 'cell', text);
      cell.setAttribute('role', 'gridcell');
      cell.dataset.key = c.key;
      if (text.length > 16) cell.title = text;
      if (c.key.startsWith('rate:')) {
        const band = data.runs[this.models.indexOf(c.key.slice(5))]?.band;
        if (band) cell.classList.add(`band-${band}`);
      }
      r.append(cell);
    }
    r.addEventListener('click', (e) => this.click(e, at, data.n));
    r.addEventListener('dblclick', () => this.post({ type: 'open', n: data.n }));
    return r;
  }

  /** Click: this row only; ctrl/cmd-click: toggle it; shift-click: the range from the last click. */
  private click(e: MouseEvent, at: number, n: number): void {
    if (e.shiftKey && this.anchor !== undefined) {
      if (!(e.ctrlKey || e.metaKey)) this.selected.clear();
      const from = Math.min(this.anchor, at);
      const to = Math.max(this.anchor, at) + 1;
      // Rows held here are selected at once; the host names those not held.
      const all: number[] = [];
      let held = true;
      for (let p = from; p < to && held; p++) {
        const row = this.blocks.get(Math.floor(p / BLOCK))?.[p % BLOCK];
        if (row) all.push(row.n);
        else held = false;
      }
      if (held) this.addSelection(RowSet.of(all));
      else this.post({ type: 'selectRange', start: from, end: to });
      return;
    }
    if (e.ctrlKey || e.metaKey) {
      if (this.selected.has(n)) this.selected.delete(n);
      else this.selected.add(n);
    } else {
      this.selected.clear();
      this.selected.add(n);
    }
    this.anchor = at;
    this.redraw();
  }

  /** Rows in the view. */
  get viewSize(): number {
    return this.size;
  }
}
