import { el, pct, svg } from './dom';
import type { SampleView, StatsView } from '../core/base/panelProtocol';

const W = 220;
const H = 90;
const PAD = 18;

/** Ten score bins; bin 9 also holds 1.0. Pass/fail verifiers fill only the two ends. */
export function scoreBins(samples: readonly SampleView[]): { passed: number[]; failed: number[] } {
  const passed = new Array<number>(10).fill(0);
  const failed = new Array<number>(10).fill(0);
  for (const s of samples) {
    const bin = Math.min(9, Math.max(0, Math.floor(s.score * 10)));
    const counts = s.pass ? passed : failed;
    counts[bin] = (counts[bin] ?? 0) + 1;
  }
  return { passed, failed };
}

/** A histogram of scores, passing samples stacked over failing ones. */
export function histogram(samples: readonly SampleView[]): HTMLElement {
  const { passed, failed } = scoreBins(samples);
  const max = Math.max(1, ...passed.map((p, i) => p + (failed[i] ?? 0)));
  const chart = svg('svg', { viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: 'img', class: 'chart histogram' });
  chart.setAttribute(
    'aria-label',
    `Score histogram: ${passed.map((p, i) => `${i / 10}–${(i + 1) / 10}: ${p + (failed[i] ?? 0)}`).join(', ')}`,
  );
  const bw = (W - PAD) / 10;
  for (let i = 0; i < 10; i++) {
    const f = failed[i] ?? 0;
    const p = passed[i] ?? 0;
    const hf = ((H - PAD) * f) / max;
    const hp = ((H - PAD) * p) / max;
    const x = PAD + i * bw + 1;
    if (!f && !p) continue;
    // One group per bin, so the tooltip covers both of its parts.
    const bin = svg('g');
    const title = svg('title');
    title.textContent = `score ${i / 10}–${(i + 1) / 10}: ${p} pass, ${f} fail`;
    bin.append(title);
    if (f) bin.append(svg('rect', { x, y: H - PAD - hf, width: bw - 2, height: hf, class: 'bar fail' }));
    if (p) bin.append(svg('rect', { x, y: H - PAD - hf - hp, width: bw - 2, height: hp, class: 'bar pass' }));
    chart.append(bin);
  }
  chart.append(
    svg('line', { x1: PAD, y1: H - PAD, x2: W, y2: H - PAD, class: 'axis' }),
    svg('line', { x1: PAD, y1: 0, x2: PAD, y2: H - PAD, class: 'axis' }),
  );
  // Scores along x; the count of samples up y, from 0 to the tallest bar.
  for (const [v, label] of [
    [0, '0'],
    [0.5, '0.5'],
    [1, '1'],
  ] as const)
    chart.append(tick(PAD + (W - PAD) * v - (v === 1 ? 8 : v ? 6 : 0), H - 4, label, 'x'));
  chart.append(tick(2, H - PAD, '0', 'y'), tick(2, 8, String(max), 'y'));
  return figure('Scores (samples per score bin)', chart);
}

/** pass@k against k on a log scale: how likely one of k samples passes. */
export function passAtKCurve(stats: StatsView): HTMLElement {
  const points = stats.passAtK.filter(([, v]) => Number.isFinite(v));
  const chart = svg('svg', { viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: 'img', class: 'chart passk' });
  chart.setAttribute('aria-label', `pass@k: ${points.map(([k, v]) => `k=${k} ${pct(v)}`).join(', ')}`);
  const maxK = Math.max(1, ...points.map(([k]) => k));
  const x = (k: number): number => PAD + ((W - PAD - 6) * Math.log2(k)) / Math.max(1, Math.log2(maxK));
  const y = (v: number): number => H - PAD - (H - PAD - 6) * v;
  chart.append(
    svg('line', { x1: PAD, y1: H - PAD, x2: W, y2: H - PAD, class: 'axis' }),
    svg('line', { x1: PAD, y1: 6, x2: PAD, y2: H - PAD, class: 'axis' }),
  );
  if (points.length)
    chart.append(svg('polyline', { points: points.map(([k, v]) => `${x(k)},${y(v)}`).join(' '), class: 'curve' }));
  for (const [k, v] of points) {
    const dot = svg('circle', { cx: x(k), cy: y(v), r: 2.5, class: 'dot' });
    const title = svg('title');
    title.textContent = `pass@${k} = ${v.toFixed(3)}`;
    dot.append(title);
    chart.append(dot);
    chart.append(tick(x(k) - 3, H - 4, String(k), 'x'));
  }
  // Probability up y.
  for (const v of [0, 0.5, 1]) chart.append(tick(2, y(v) + 3, String(v), 'y'));
  return figure('pass@k (k along, probability up)', chart);
}

/** An axis value. */
function tick(x: number, y: number, label: string, axis: 'x' | 'y'): SVGElement {
  const t = svg('text', { x, y, class: `tick tick-${axis}` });
  t.textContent = label;
  return t;
}

function figure(caption: string, chart: SVGElement): HTMLElement {
  const f = el('figure', 'chart-box');
  f.append(chart, el('figcaption', undefined, caption));
  return f;
}
