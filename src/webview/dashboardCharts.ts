import type { DatasetStatsView } from '../core/base/dashboardProtocol';
import { el, pct, svg } from './dom';

export type Band = 'too_easy' | 'learnable' | 'too_hard';
export const BANDS: readonly Band[] = ['too_easy', 'learnable', 'too_hard'];
export const BAND_WORDS: Readonly<Record<Band, string>> = { too_easy: 'too easy', learnable: 'learnable', too_hard: 'too hard' };
type Counts = Readonly<Record<Band, number>>;
type Results = NonNullable<DatasetStatsView['results']>;

const W = 240;
const H = 90;
const PAD = 18;

/** A bar of a model's tasks by band, each part as wide as its share, with its count in its tooltip. */
export function bandBar(counts: Counts, width = 160): SVGElement {
  const total = BANDS.reduce((a, b) => a + counts[b], 0);
  const bar = svg('svg', { viewBox: `0 0 ${width} 12`, width, height: 12, role: 'img', class: 'band-bar' });
  bar.setAttribute('aria-label', BANDS.map((b) => `${counts[b]} ${BAND_WORDS[b]}`).join(', '));
  let x = 0;
  for (const b of BANDS) {
    if (!total || !counts[b]) continue;
    const w = (width * counts[b]) / total;
    const rect = svg('rect', { x, y: 0, width: w, height: 12, class: `seg ${b}` });
    const title = svg('title');
    title.textContent = `${counts[b]} ${BAND_WORDS[b]} (${pct(counts[b] / total)})`;
    rect.append(title);
    bar.append(rect);
    x += w;
  }
  if (!total) bar.append(svg('rect', { x: 0, y: 0, width, height: 12, class: 'seg none' }));
  return bar;
}

/** Tasks per pass-rate bin, as bars; each bar's tooltip gives its range and count. */
export function passRateHistogram(model: string, bins: DatasetStatsView['models'][string]['histogram']): HTMLElement {
  const chart = svg('svg', { viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: 'img', class: 'chart histogram' });
  chart.setAttribute('aria-label', `Pass rates of ${model}: ${bins.map((b) => `${pct(b.from)}–${pct(b.to)}: ${b.tasks}`).join(', ')}`);
  const max = Math.max(1, ...bins.map((b) => b.tasks));
  const bw = (W - PAD) / Math.max(1, bins.length);
  bins.forEach((b, i) => {
    if (!b.tasks) return;
    const h = ((H - PAD) * b.tasks) / max;
    const rect = svg('rect', { x: PAD + i * bw + 1, y: H - PAD - h, width: Math.max(1, bw - 2), height: h, class: `bar ${b.to <= 0.1 || b.from >= 0.9 ? 'edge' : 'mid'}` });
    const title = svg('title');
    title.textContent = `pass rate ${pct(b.from)}–${pct(b.to)}: ${b.tasks} tasks`;
    rect.append(title);
    chart.append(rect);
  });
  chart.append(svg('line', { x1: PAD, y1: H - PAD, x2: W, y2: H - PAD, class: 'axis' }), svg('line', { x1: PAD, y1: 0, x2: PAD, y2: H - PAD, class: 'axis' }));
  chart.append(tick(PAD, H - 4, '0%'), tick(PAD + (W - PAD) / 2 - 8, H - 4, '50%'), tick(W - 22, H - 4, '100%'), tick(2, H - PAD, '0'), tick(2, 8, String(max)));
  const f = el('figure', 'chart-box');
  f.append(chart, el('figcaption', undefined, `${model}: tasks by pass rate`));
  return f;
}

/** One task's pass rates under two models. */
export interface Pairing {
  readonly file: string;
  readonly task: string;
  readonly a: number;
  readonly b: number;
}

/** The tasks both models ran, most different first. */
export function pairings(results: Results, a: string, b: string): Pairing[] {
  const ofA = new Map<string, number>();
  for (const r of results) if (r.model === a && r.samples > 0) ofA.set(`${r.file}\u0000${r.task}`, r.pass_rate);
  const out: Pairing[] = [];
  for (const r of results) {
    if (r.model !== b || r.samples === 0) continue;
    const pa = ofA.get(`${r.file}\u0000${r.task}`);
    if (pa !== undefined) out.push({ file: r.file, task: r.task, a: pa, b: r.pass_rate });
  }
  return out.sort((x, y) => Math.abs(y.a - y.b) - Math.abs(x.a - x.b) || x.file.localeCompare(y.file) || x.task.localeCompare(y.task));
}

const GRID = 10;
const CELL = 18;

/**
 * Pass rate under A (along) against B (up) for every task both ran: a 10×10 grid whose cells
 * are darker the more tasks fall in them, so 100,000 points stay one small picture. A task off
 * the diagonal separates the models; a click on a cell lists its tasks.
 */
export function scatter(pairs: readonly Pairing[], a: string, b: string, onCell: (i: number, j: number) => void): HTMLElement {
  const counts = Array.from({ length: GRID }, () => new Array<number>(GRID).fill(0));
  const bin = (x: number): number => Math.min(GRID - 1, Math.max(0, Math.floor(x * GRID)));
  for (const p of pairs) (counts[bin(p.a)] as number[])[bin(p.b)]! += 1;
  const max = Math.max(1, ...counts.flat());
  const size = PAD + GRID * CELL;
  const chart = svg('svg', { viewBox: `0 0 ${size + 4} ${size + 4}`, width: size + 4, height: size + 4, role: 'img', class: 'chart scatter' });
  chart.setAttribute('aria-label', `Pass rate of ${a} (along) against ${b} (up), ${pairs.length} tasks`);
  for (let i = 0; i < GRID; i++) {
    for (let j = 0; j < GRID; j++) {
      const n = counts[i]?.[j] ?? 0;
      const cell = svg('rect', { x: PAD + i * CELL, y: (GRID - 1 - j) * CELL, width: CELL - 1, height: CELL - 1, class: n ? `cell${i === j ? ' diagonal' : ''}` : 'cell empty' });
      // Density on a log scale: one task must still show beside ten thousand.
      if (n) cell.setAttribute('fill-opacity', (0.2 + (0.8 * Math.log1p(n)) / Math.log1p(max)).toFixed(2));
      const title = svg('title');
      title.textContent = `${a} ${i * 10}–${(i + 1) * 10}%, ${b} ${j * 10}–${(j + 1) * 10}%: ${n} task${n === 1 ? '' : 's'}`;
      cell.append(title);
      if (n) cell.addEventListener('click', () => onCell(i, j));
      chart.append(cell);
    }
  }
  chart.append(svg('line', { x1: PAD, y1: GRID * CELL, x2: PAD + GRID * CELL, y2: 0, class: 'diagonal-line' }));
  chart.append(tick(PAD, size + 2, '0'), tick(PAD + GRID * CELL - 14, size + 2, '100%'), tick(0, GRID * CELL, '0'), tick(0, 8, '100%'));
  const f = el('figure', 'chart-box');
  f.append(chart, el('figcaption', undefined, `${a} → along, ${b} ↑ up (click a square for its tasks)`));
  return f;
}

export function cellOf(p: Pairing): [number, number] {
  const bin = (x: number): number => Math.min(GRID - 1, Math.max(0, Math.floor(x * GRID)));
  return [bin(p.a), bin(p.b)];
}

function tick(x: number, y: number, label: string): SVGElement {
  const t = svg('text', { x, y, class: 'tick' });
  t.textContent = label;
  return t;
}
