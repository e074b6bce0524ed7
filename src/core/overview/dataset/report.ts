// `vtask stats --html`: the statistics as one self-contained page. Styles and SVG charts are
// inline; the page loads nothing and runs nothing (its Content-Security-Policy allows inline
// styles only), and every text from the dataset is escaped, since prompts and ids are data.
import { BANDS, type Band } from '../../stats';
import type { BandCounts, DatasetStats, HistogramBin, ModelComparison, ModelStats, TaskRef } from './types';
import { noun, plural } from '../../util/plural';
import { usageText } from '../runlog/usage';

/** Rows shown per table before "N more" (a page of 100,000 rows helps no one). */
const TABLE_ROWS = 200;

const BAND_NAMES: readonly Band[] = BANDS;

/** Escapes text for HTML content and attribute values. */
export function escapeHtml(s: unknown): string {
  return String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;
const where = (r: TaskRef): string => `${r.file}${r.line !== undefined ? `:${r.line + 1}` : ''}`;
const num = (n: number): string => n.toLocaleString('en-US');

const CSS = `
:root { color-scheme: light dark; --bg: #ffffff; --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --panel: #f6f8fa;
  --easy: #2da44e; --learn: #0969da; --hard: #cf222e; --bar: #8250df; --dot: #0969da; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #0d1117; --fg: #e6edf3; --muted: #9198a1; --line: #3d444d; --panel: #151b23;
    --easy: #3fb950; --learn: #4493f8; --hard: #f85149; --bar: #ab7df8; --dot: #4493f8; }
}
body { background: var(--bg); color: var(--fg); font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 auto; max-width: 1100px; padding: 24px; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 18px; margin: 28px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 15px; margin: 18px 0 6px; }
.muted { color: var(--muted); }
.cards { display: flex; flex-wrap: wrap; gap: 10px; margin: 12px 0; }
.card { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; min-width: 110px; }
.card b { display: block; font-size: 20px; }
table { border-collapse: collapse; width: 100%; margin: 6px 0; font-size: 13px; }
th, td { border-bottom: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
.text { max-width: 420px; overflow-wrap: anywhere; white-space: pre-wrap; }
svg { display: block; margin: 6px 0; overflow: visible; }
svg text { fill: var(--fg); font: 11px system-ui, sans-serif; }
.too_easy { fill: var(--easy); } .learnable { fill: var(--learn); } .too_hard { fill: var(--hard); } .error { fill: var(--bar); }
.bar { fill: var(--bar); } .dot { fill: var(--dot); fill-opacity: 0.55; } .axis { stroke: var(--muted); stroke-width: 1; fill: none; }
.legend span { display: inline-block; margin-right: 14px; } .swatch { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 4px; }
.s-too_easy { background: var(--easy); } .s-learnable { background: var(--learn); } .s-too_hard { background: var(--hard); } .s-error { background: var(--bar); }
.models { display: flex; flex-wrap: wrap; gap: 24px; }
`;

/** The whole report page for `stats`. */
export function renderStatsHtml(stats: DatasetStats): string {
  const t = stats.totals;
  const body = [
    `<h1>Dataset statistics</h1><p class="muted">${num(stats.files)} ${noun(stats.files, 'file')}, ${num(stats.tasks)} ${noun(stats.tasks, 'task')}</p>`,
    cards([
      ['tasks', num(stats.tasks)],
      ['invalid tasks', num(t.invalid_tasks ?? 0)],
      ['errors', num(t.errors)],
      ['cases', num(t.cases.total)],
      ['cases passed', num(t.cases.passed)],
      ['cases failed', num(t.cases.failed)],
      ['cases skipped', num(t.cases.skipped)],
      ['tasks without cases', num(t.tasks_without_cases)],
      ['duplicate pairs', num(stats.duplicates.length)],
      ['benchmark overlaps', num(stats.contamination.length)],
    ]),
    `<h2>Verifier kinds</h2>`,
    table(
      ['kind', 'tasks'],
      Object.entries(t.kinds).sort((a, b) => b[1] - a[1]),
      ([k, n]) => [escapeHtml(k), numCell(n)],
    ),
    `<h2>Files</h2>`,
    table(
      ['file', 'tasks', 'invalid', 'errors', 'cases', 'passed', 'failed', 'skipped', 'without cases'],
      [...stats.per_file].sort((a, b) => b.tasks - a.tasks),
      (f) => [
        escapeHtml(f.file),
        numCell(f.tasks),
        numCell(f.invalid_tasks ?? 0),
        numCell(f.errors),
        numCell(f.cases.total),
        numCell(f.cases.passed),
        numCell(f.cases.failed),
        numCell(f.cases.skipped),
        numCell(f.tasks_without_cases),
      ],
    ),
    modelsSection(stats.models),
    ...comparisonSections(stats.comparisons ?? []),
    `<h2>Near-duplicate prompts</h2>`,
    table(['similarity', 'task', 'where', 'task', 'where'], stats.duplicates, (d) => [
      numCell(d.similarity.toFixed(2) + (d.exact ? ' (exact)' : '')),
      escapeHtml(d.a.task),
      escapeHtml(where(d.a)),
      escapeHtml(d.b.task),
      escapeHtml(where(d.b)),
    ]),
    `<h2>Benchmark overlap</h2>`,
    table(['task', 'where', 'benchmark', 'row', 'overlap'], stats.contamination, (c) => [
      escapeHtml(c.task),
      escapeHtml(where(c)),
      escapeHtml(c.benchmark ?? ''),
      numCell(c.benchmark_row),
      `<span class="text">${escapeHtml(c.overlap)}</span>`,
    ]),
  ].join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>vtask stats: ${num(stats.tasks)} ${noun(stats.tasks, 'task')}</title>
<style>${CSS}</style>
</head>
<body>
${body}
</body>
</html>
`;
}

function cards(items: readonly [string, string][]): string {
  return `<div class="cards">${items.map(([k, v]) => `<div class="card"><b>${v}</b><span class="muted">${escapeHtml(k)}</span></div>`).join('')}</div>`;
}

const numCell = (v: number | string): string => `<td-n>${escapeHtml(typeof v === 'number' ? num(v) : v)}`;

/** A table of at most TABLE_ROWS rows; cells are already escaped HTML (a `<td-n>` start marks a number). */
function table<T>(head: readonly string[], rows: readonly T[], cells: (row: T) => string[]): string {
  if (!rows.length) return '<p class="muted">None.</p>';
  const shown = rows.slice(0, TABLE_ROWS);
  const td = (c: string): string => (c.startsWith('<td-n>') ? `<td class="n">${c.slice(6)}</td>` : `<td>${c}</td>`);
  const more =
    rows.length > shown.length
      ? `<p class="muted">${num(rows.length - shown.length)} more not shown (the JSON output has them all).</p>`
      : '';
  return `<table><thead><tr>${head.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>${shown.map((r) => `<tr>${cells(r).map(td).join('')}</tr>`).join('')}</tbody></table>${more}`;
}

function modelsSection(models: DatasetStats['models']): string {
  const names = Object.keys(models);
  if (!names.length)
    return `<h2>Models</h2><p class="muted">No runs in the cache: <code>vtask run</code> records them.</p>`;
  const legend = `<p class="legend">${BAND_NAMES.map((b) => `<span><i class="swatch s-${b}"></i>${b}</span>`).join('')}</p>`;
  return `<h2>Models</h2>${legend}<div class="models">${names.map((n) => modelBlock(n, models[n] as ModelStats)).join('')}</div>${names
    .map((n) => {
      const m = models[n] as ModelStats;
      return m.changed.length
        ? `<h3>${escapeHtml(n)}: band changed since the previous run</h3>${table(['task', 'where', 'from', 'to'], m.changed, (c) => [escapeHtml(c.task), escapeHtml(where(c)), escapeHtml(c.from ?? 'error'), escapeHtml(c.to ?? 'error')])}`
        : '';
    })
    .join('')}`;
}

function modelBlock(name: string, m: ModelStats): string {
  const stale = m.stale ? `, ${num(m.stale)} stale runs left out` : '';
  const usage = m.tokens ? `, ${escapeHtml(usageText(m.tokens, m.cost))}` : '';
  return `<section><h3>${escapeHtml(name)}</h3><p class="muted">${num(m.tasks)} ${noun(m.tasks, 'task')}, ${num(m.samples)} ${noun(m.samples, 'sample')}, GRPO signal ${pct(m.signal_share)}${stale}${usage}</p>${bandBar(m.bands, m.tasks)}${histogram(m.histogram)}</section>`;
}

/** One stacked bar of the band counts. */
export function bandBar(bands: BandCounts, tasks: number): string {
  const W = 320;
  let x = 0;
  const rects = BAND_NAMES.map((b) => {
    const w = tasks ? (bands[b] / tasks) * W : 0;
    const r = `<rect class="${b}" x="${x.toFixed(1)}" y="0" width="${w.toFixed(1)}" height="18"><title>${b}: ${bands[b]}</title></rect>`;
    x += w;
    return r;
  }).join('');
  const labels = BAND_NAMES.map((b) => `${b} ${num(bands[b])}`).join(' · ');
  return `<svg width="${W}" height="36" role="img" aria-label="bands: ${escapeHtml(labels)}"><rect class="axis" x="0" y="0" width="${W}" height="18"/>${rects}<text x="0" y="32">${escapeHtml(labels)}</text></svg>`;
}

/** The pass-rate histogram as bars, one per bin. */
export function histogram(bins: readonly HistogramBin[]): string {
  const W = 320;
  const H = 110;
  const max = Math.max(1, ...bins.map((b) => b.tasks));
  const bw = W / Math.max(1, bins.length);
  const bars = bins
    .map((b, i) => {
      const h = (b.tasks / max) * (H - 20);
      return `<rect class="bar" x="${(i * bw + 1).toFixed(1)}" y="${(H - 16 - h).toFixed(1)}" width="${(bw - 2).toFixed(1)}" height="${h.toFixed(1)}"><title>${b.from.toFixed(1)}–${b.to.toFixed(1)}: ${plural(b.tasks, 'task')}</title></rect>`;
    })
    .join('');
  return `<svg width="${W}" height="${H}" role="img" aria-label="pass-rate histogram">${bars}<path class="axis" d="M0 ${H - 16}H${W}"/><text x="0" y="${H - 2}">pass rate 0</text><text x="${W}" y="${H - 2}" text-anchor="end">1</text></svg>`;
}

/** A's pass rate against B's; tasks at the same point are one dot sized by their number. */
export function scatter(c: ModelComparison): string {
  const S = 260;
  const P = 30;
  const cells = new Map<string, { a: number; b: number; n: number }>();
  for (const p of c.points ?? []) {
    const k = `${Math.round(p.a * 100)},${Math.round(p.b * 100)}`;
    const cell = cells.get(k);
    if (cell) cell.n++;
    else cells.set(k, { a: p.a, b: p.b, n: 1 });
  }
  const max = Math.max(1, ...[...cells.values()].map((x) => x.n));
  const dots = [...cells.values()]
    .map(
      (x) =>
        `<circle class="dot" cx="${(P + x.a * S).toFixed(1)}" cy="${(S - x.b * S).toFixed(1)}" r="${(2 + 10 * Math.sqrt(x.n / max)).toFixed(1)}"><title>${escapeHtml(c.a)} ${x.a.toFixed(2)}, ${escapeHtml(c.b)} ${x.b.toFixed(2)}: ${plural(x.n, 'task')}</title></circle>`,
    )
    .join('');
  return `<svg width="${S + P + 10}" height="${S + P}" role="img" aria-label="${escapeHtml(c.a)} against ${escapeHtml(c.b)}"><path class="axis" d="M${P} 0V${S}H${P + S}"/><path class="axis" d="M${P} ${S}L${P + S} 0" stroke-dasharray="3 3"/>${dots}<text x="${P + S}" y="${S + 16}" text-anchor="end">${escapeHtml(c.a)} →</text><text x="${P - 4}" y="10" text-anchor="end">${escapeHtml(c.b)}</text><text x="${P}" y="${S + 16}">0</text><text x="${P - 4}" y="${S}" text-anchor="end">0</text></svg>`;
}

/**
 * A section per pair of models that ran some task in common; pairs with none are named in one
 * line instead of drawing an empty chart and an empty table each.
 */
function comparisonSections(comparisons: readonly ModelComparison[]): string[] {
  const apart = comparisons.filter((c) => c.tasks === 0).map((c) => `${escapeHtml(c.a)} and ${escapeHtml(c.b)}`);
  const sections = comparisons.filter((c) => c.tasks > 0).map(comparisonSection);
  if (apart.length) sections.push(`<p class="muted">Not compared, no task run by both: ${apart.join('; ')}</p>`);
  return sections;
}

function comparisonSection(c: ModelComparison): string {
  const head = `<h2>${escapeHtml(c.a)} against ${escapeHtml(c.b)}</h2>`;
  const counts = `<p class="muted">${num(c.tasks)} ${noun(c.tasks, 'task')} run by both: ${escapeHtml(c.a)} higher on ${num(c.a_higher)}, ${escapeHtml(c.b)} higher on ${num(c.b_higher)}; both always solve ${num(c.both_solve.length)}, both never solve ${num(c.both_fail.length)}</p>`;
  const sep = table(['task', 'where', c.a, c.b], c.separating, (p) => [
    escapeHtml(p.task),
    escapeHtml(where(p)),
    numCell(p.a.toFixed(2)),
    numCell(p.b.toFixed(2)),
  ]);
  return `${head}${counts}${scatter(c)}<h3>The tasks that separate them most</h3>${sep}`;
}
