import { COMPARE_GRID, type ComparisonView, type DatasetStatsView } from '../core/base/dashboardProtocol';
import { el, pct, svg } from './dom';

export type Band = 'too_easy' | 'learnable' | 'too_hard' | 'error';
export const BANDS: readonly Band[] = ['too_easy', 'learnable', 'too_hard', 'error'];
export const BAND_WORDS: Readonly<Record<Band, string>> = {
  too_easy: 'too easy',
  learnable: 'learnable',
  too_hard: 'too hard',
  error: 'error',
};
type Counts = Readonly<Record<Band, number>>;

const CELL = 18;
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
  chart.setAttribute(
    'aria-label',
    `Pass rates of ${model}: ${bins.map((b) => `${pct(b.from)}–${pct(b.to)}: ${b.tasks}`).join(', ')}`,
  );
  const max = Math.max(1, ...bins.map((b) => b.tasks));
  const bw = (W - PAD) / Math.max(1, bins.length);
  bins.forEach((b, i) => {
    if (!b.tasks) return;
    const h = ((H - PAD) * b.tasks) / max;
    const rect = svg('rect', {
      x: PAD + i * bw + 1,
      y: H - PAD - h,
      width: Math.max(1, bw - 2),
      height: h,
      class: `bar ${b.to <= 0.1 || b.from >= 0.9 ? 'edge' : 'mid'}`,
    });
    const title = svg('title');
    title.textContent = `pass rate ${pct(b.from)}–${pct(b.to)}: ${b.tasks} tasks`;
    rect.append(title);
    chart.append(rect);
  });
  chart.append(
    svg('line', { x1: PAD, y1: H - PAD, x2: W, y2: H - PAD, class: 'axis' }),
    svg('line', { x1: PAD, y1: 0, x2: PAD, y2: H - PAD, class: 'axis' }),
  );
  chart.append(
    tick(PAD, H - 4, '0%'),
    tick(PAD + (W - PAD) / 2 - 8, H - 4, '50%'),
    tick(W - 1, H - 4, '100%', 'end'),
    tick(2, H - PAD, '0'),
    tick(2, 8, String(max)),
  );
  const f = el('figure', 'chart-box');
  f.append(chart, el('figcaption', undefined, `${model}: tasks by pass rate`));
  return f;
}

/**
 * Pass rate under A (along) against B (up) for every task both ran: a 10×10 grid whose squares
 * are darker the more tasks fall in them, so 100,000 points stay one small picture. A task off
 * the diagonal separates the models; a click on a square lists its tasks.
 */
export function scatter(c: ComparisonView, onCell: (i: number, j: number) => void): HTMLElement {
  const { a, b, grid } = c;
  const max = Math.max(1, ...grid.flat());
  const size = PAD + COMPARE_GRID * CELL;
  const chart = svg('svg', {
    viewBox: `0 0 ${size + 4} ${size + 4}`,
    width: size + 4,
    height: size + 4,
    role: 'img',
    class: 'chart scatter',
  });
  chart.setAttribute('aria-label', `Pass rate of ${a} (along) against ${b} (up), ${c.tasks} tasks`);
  for (let i = 0; i < COMPARE_GRID; i++) {
    for (let j = 0; j < COMPARE_GRID; j++) {
      const n = grid[i]?.[j] ?? 0;
      const chosen = c.cell?.[0] === i && c.cell[1] === j;
      const cell = svg('rect', {
        x: PAD + i * CELL,
        y: (COMPARE_GRID - 1 - j) * CELL,
        width: CELL - 1,
        height: CELL - 1,
        class: n ? `cell${i === j ? ' diagonal' : ''}${chosen ? ' chosen' : ''}` : 'cell empty',
      });
      // Density on a log scale: one task must still show beside ten thousand.
      if (n) cell.setAttribute('fill-opacity', (0.2 + (0.8 * Math.log1p(n)) / Math.log1p(max)).toFixed(2));
      const title = svg('title');
      title.textContent = `${a} ${i * 10}–${(i + 1) * 10}%, ${b} ${j * 10}–${(j + 1) * 10}%: ${n} task${n === 1 ? '' : 's'}`;
      cell.append(title);
      if (n) cell.addEventListener('click', () => onCell(i, j));
      chart.append(cell);
    }
  }
  chart.append(
    svg('line', { x1: PAD, y1: COMPARE_GRID * CELL, x2: PAD + COMPARE_GRID * CELL, y2: 0, class: 'diagonal-line' }),
  );
  chart.append(
    tick(PAD, size + 2, '0'),
    tick(PAD + COMPARE_GRID * CELL, size + 2, '100%', 'end'),
    tick(0, COMPARE_GRID * CELL, '0'),
    tick(0, 8, '100%'),
  );
  const f = el('figure', 'chart-box');
  f.append(chart, el('figcaption', undefined, `${a} → along, ${b} ↑ up (click a square for its tasks)`));
  return f;
}

/** An axis label; one at the right end is anchored there (`end`), so its width cannot push it past the chart's edge. */
function tick(x: number, y: number, label: string, anchor: 'start' | 'end' = 'start'): SVGElement {
  const t = svg('text', { x, y, class: 'tick', 'text-anchor': anchor });
  t.textContent = label;
  return t;
}
