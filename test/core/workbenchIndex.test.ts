// The workbench's columnar index against a naive filter and sort over plain objects: random
// rows, random queries and every sortable column must give the same rows in the same order.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BANDS, type Band } from '../../src/core/stats';
import { WorkbenchIndex, type ColumnKey, type WorkbenchRun, type WorkbenchTask } from '../../src/core/workbench/index';
import { compare, parseQuery, type Query } from '../../src/core/workbench/query';

/** A small deterministic generator (mulberry32). */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const MODELS = ['strong', 'weak'];
const KINDS = ['math', 'code', 'constraints', null];
const LABELS = [undefined, 'checked', 'bad_gold'];
const WORDS = ['apples', 'carry', 'prime', 'Sum', 'river'];

interface Row {
  task: WorkbenchTask;
  runs: Map<string, WorkbenchRun>;
}

function rows(count: number, seed: number): Row[] {
  const r = random(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  return Array.from({ length: count }, (_, i) => {
    const cases = Math.floor(r() * 4);
    const ran = r() < 0.7;
    const failed = ran ? Math.floor(r() * (cases + 1)) : -1;
    const task: WorkbenchTask = {
      id: `t${Math.floor(r() * count)}`,
      file: pick(['a.vtask', 'data/b.jsonl', 'c.parquet']),
      line: i,
      kind: pick(KINDS),
      prompt: `${pick(WORDS)} ${pick(WORDS)} ${i % 7}`,
      cases,
      casesPassed: ran ? cases - failed : -1,
      casesFailed: failed,
      findings: r() < 0.3 ? -1 : Math.floor(r() * 3),
      ...(pick(LABELS) ? { label: pick(LABELS.slice(1)) } : {}),
    };
    const runs = new Map<string, WorkbenchRun>();
    for (const m of MODELS) {
      if (r() < 0.3) continue;
      const samples = 1 + Math.floor(r() * 8);
      const rate = Math.floor(r() * (samples + 1)) / samples;
      const band: Band = r() < 0.05 ? 'error' : pick(BANDS.slice(0, 3));
      runs.set(m, {
        rate,
        band,
        samples,
        signal: Math.round(r() * 10) / 10,
        ...(r() < 0.5 ? { tokens: Math.floor(r() * 1000) } : {}),
        ...(r() < 0.5 ? { cost: Math.floor(r() * 100) / 1000 } : {}),
      });
    }
    return { task, runs };
  });
}

function indexOf(data: readonly Row[]): WorkbenchIndex {
  const ix = new WorkbenchIndex(8);
  for (const d of data) {
    const n = ix.add(d.task);
    for (const [m, run] of d.runs) ix.setRun(n, m, run);
  }
  return ix;
}

/** The query over plain objects, as the docs describe it. */
function naive(data: readonly Row[], q: Query): number[] {
  const out: number[] = [];
  data.forEach((d, n) => {
    const runs =
      q.model === undefined ? [...d.runs.values()] : d.runs.has(q.model) ? [d.runs.get(q.model) as WorkbenchRun] : null;
    if (!runs) return;
    for (const t of q.text) {
      let hit: boolean;
      if (t.field === 'band') hit = t.value === 'none' ? runs.length === 0 : runs.some((x) => x.band === t.value);
      else if (t.field === 'kind') hit = (d.task.kind ?? 'invalid') === t.value;
      else if (t.field === 'label') hit = (d.task.label ?? 'none') === t.value;
      else hit = (t.field === 'id' ? d.task.id : d.task.file).toLowerCase().includes(t.value.toLowerCase());
      if (hit === t.negated) return;
    }
    for (const t of q.numbers) {
      let hit: boolean;
      if (t.field === 'cases') hit = compare(d.task.cases, t.op, t.value);
      else if (t.field === 'failing') hit = d.task.casesFailed >= 0 && compare(d.task.casesFailed, t.op, t.value);
      else if (t.field === 'findings') hit = d.task.findings >= 0 && compare(d.task.findings, t.op, t.value);
      else {
        const f = t.field;
        hit = runs.some((x) => {
          if (f === 'rate' && x.band === 'error') return false;
          const v = x[f];
          return v !== undefined && compare(v, t.op, t.value);
        });
      }
      if (!hit) return;
    }
    const text = `${d.task.prompt}`.toLowerCase();
    if (
      !q.words.every(
        (w) => text.includes(w) || d.task.id.toLowerCase().includes(w) || d.task.file.toLowerCase().includes(w),
      )
    )
      return;
    out.push(n);
  });
  return out;
}

/** A column's value of a row for the naive sort; undefined: none. */
function valueOf(d: Row, column: ColumnKey): number | string | undefined {
  const at = column.indexOf(':');
  if (at < 0) {
    if (column === 'findings') return d.task.findings < 0 ? undefined : d.task.findings;
    if (column === 'kind') return d.task.kind ?? undefined;
    if (column === 'label') return d.task.label;
    const v = d.task[column as 'id' | 'file' | 'prompt' | 'cases'];
    return v === '' ? undefined : v;
  }
  const run = d.runs.get(column.slice(at + 1));
  if (!run) return undefined;
  const f = column.slice(0, at) as keyof WorkbenchRun;
  if (f === 'band') return ['too_easy', 'learnable', 'too_hard', 'error'].indexOf(run.band);
  return run[f];
}

function naiveSort(data: readonly Row[], kept: number[], column: ColumnKey, descending: boolean): number[] {
  return [...kept].sort((a, b) => {
    const x = valueOf(data[a] as Row, column);
    const y = valueOf(data[b] as Row, column);
    if (x === undefined || y === undefined) return x === y ? a - b : x === undefined ? 1 : -1;
    if (x === y) return a - b;
    return (x < y ? -1 : 1) * (descending ? -1 : 1);
  });
}

const QUERIES = [
  '',
  'band:too_hard',
  'band:none',
  'band:!learnable kind:math',
  'kind:invalid',
  'model:strong rate<0.5',
  'model:weak band:error',
  'rate>=0.5 samples>3',
  'findings>0',
  'failing>=1 cases>1',
  'label:!checked',
  'label:none',
  'label:bad_gold kind:code',
  'tokens>500',
  'model:strong cost<=0.05',
  'signal=0.5',
  'apples',
  'sum prime',
  'id:t1 file:jsonl',
  'file:!parquet carry 3',
  'model:nobody',
];
const COLUMNS: ColumnKey[] = [
  'id',
  'file',
  'kind',
  'prompt',
  'cases',
  'findings',
  'label',
  'rate:strong',
  'band:weak',
  'samples:strong',
  'signal:weak',
  'tokens:strong',
  'cost:weak',
];

test('filter and sort agree with a naive implementation on random rows', () => {
  for (const seed of [1, 2, 3]) {
    const data = rows(1500, seed);
    const ix = indexOf(data);
    assert.equal(ix.size, data.length);
    for (const text of QUERIES) {
      const parsed = parseQuery(text);
      assert.ok('query' in parsed, text);
      const want = naive(data, parsed.query);
      assert.deepEqual(Array.from(ix.filter(parsed.query)), want, `seed ${seed}: ${text}`);
      for (const column of COLUMNS) {
        for (const descending of [false, true]) {
          const size = ix.setView(parsed.query, { column, descending });
          assert.equal(size, want.length);
          assert.deepEqual(
            ix.viewRows(),
            naiveSort(data, want, column, descending),
            `seed ${seed}: ${text} by ${column}${descending ? ' desc' : ''}`,
          );
        }
      }
    }
  }
});

test('windows show the rows of the view; labels set later are filtered and shown', () => {
  const data = rows(300, 9);
  const ix = indexOf(data);
  const q = parseQuery('label:bad_gold');
  assert.ok('query' in q);
  const before = ix.setView(q.query, { column: 'id' });
  const n = naive(data, { text: [], numbers: [], words: [] }).find((k) => data[k]?.task.label !== 'bad_gold') as number;
  ix.setLabel(n, 'bad_gold');
  assert.equal(ix.refresh(), before + 1);
  assert.ok(ix.viewRows().includes(n));
  const win = ix.window(0, 5);
  assert.equal(win.length, 5);
  assert.ok(win.every((r) => r.label === 'bad_gold'));
  const shown = ix.row(n);
  assert.equal(shown.id, data[n]?.task.id);
  assert.deepEqual(
    shown.runs,
    MODELS.filter((m) => ix.models.includes(m)).map((m) => data[n]?.runs.get(m) ?? null),
  );
  ix.setLabel(n, undefined);
  assert.equal(ix.row(n).label, undefined);
  assert.equal(ix.rowOf(data[n]?.task.file as string, ix.row(n).id) !== undefined, true);
});
