// Dataset statistics (the `vtask stats --json` object) of a made-up dataset of any size, for the
// dashboard's tests: every count follows from the arguments, so a test knows what to expect.
// Task i of each file has model A's pass rate (i % 11) / 10 and model B's (i % 5) / 4; every 100th task has an exact duplicate in the next file and every 1000th a
// benchmark overlap.
import type { Band } from '../../src/core/stats';
import type {
  BandCounts,
  DatasetStats,
  FileStats,
  HistogramBin,
  ModelStats,
  TaskModelResult,
} from '../../src/core/overview/dataset/types';

export const HOSTILE_ID = '<img src=x onerror="window.__xss=1">';
export const HOSTILE_OVERLAP = '<script>window.__xss=2</script> what is the capital of france';

const band = (rate: number): Band => (rate >= 0.9 ? 'too_easy' : rate <= 0.1 ? 'too_hard' : 'learnable');
const none = (): Record<Band, number> => ({ too_easy: 0, learnable: 0, too_hard: 0, error: 0 });

export const fileName = (f: number): string => `data/part-${String(f).padStart(4, '0')}.vtask`;
export const taskId = (f: number, i: number): string => `p${f}/t${i}`;

export function makeStats(o: {
  files: number;
  tasksPerFile: number;
  models?: readonly string[];
  hostile?: boolean;
}): DatasetStats {
  const models = o.models ?? ['model-a', 'model-b'];
  const results: TaskModelResult[] = [];
  const perFile: FileStats[] = [];
  const modelBands = new Map(models.map((m) => [m, none()]));
  const hist = new Map(models.map((m) => [m, new Array<number>(10).fill(0)]));
  const totals = {
    tasks: 0,
    kinds: {} as Record<string, number>,
    cases: { total: 0, passed: 0, failed: 0, skipped: 0 },
    tasks_without_cases: 0,
    errors: 0,
    bands: {} as Record<string, BandCounts>,
  };
  for (let f = 0; f < o.files; f++) {
    const file = fileName(f);
    const bands: Record<string, Record<Band, number>> = Object.fromEntries(models.map((m) => [m, none()]));
    const kinds = { math: 0, constraints: 0 };
    for (let i = 0; i < o.tasksPerFile; i++) {
      const task = o.hostile && f === 0 && i === 1 ? HOSTILE_ID : taskId(f, i);
      kinds[i % 3 === 0 ? 'constraints' : 'math']++;
      models.forEach((model, m) => {
        const pass_rate = m % 2 === 0 ? (i % 11) / 10 : (i % 5) / 4;
        const b = band(pass_rate);
        results.push({ file, task, line: i * 5 + 2, model, samples: 10, pass_rate, band: b });
        (bands[model] as Record<Band, number>)[b]++;
        (modelBands.get(model) as Record<Band, number>)[b]++;
        const h = hist.get(model) as number[];
        h[Math.min(9, Math.floor(pass_rate * 10))]! += 1;
      });
    }
    const failed = f % 7 === 3 ? 2 : 0;
    const fs: FileStats = {
      file,
      tasks: o.tasksPerFile,
      kinds,
      cases: { total: o.tasksPerFile * 2, passed: o.tasksPerFile * 2 - failed, failed, skipped: 0 },
      tasks_without_cases: f % 5 === 0 ? 1 : 0,
      errors: f % 13 === 4 ? 1 : 0,
      bands,
    };
    perFile.push(fs);
    totals.tasks += fs.tasks;
    for (const [k, v] of Object.entries(kinds)) totals.kinds[k] = (totals.kinds[k] ?? 0) + v;
    totals.cases.total += fs.cases.total;
    totals.cases.passed += fs.cases.passed;
    totals.cases.failed += fs.cases.failed;
    totals.tasks_without_cases += fs.tasks_without_cases;
    totals.errors += fs.errors;
  }
  for (const m of models) totals.bands[m] = modelBands.get(m) as BandCounts;
  const total = o.files * o.tasksPerFile;
  const modelStats: Record<string, ModelStats> = {};
  for (const m of models) {
    const histogram: HistogramBin[] = (hist.get(m) as number[]).map((tasks, i) => ({
      from: i / 10,
      to: (i + 1) / 10,
      tasks,
    }));
    modelStats[m] = {
      tasks: total,
      samples: total * 10,
      histogram,
      bands: modelBands.get(m) as BandCounts,
      signal_share: 0.5,
      changed: [{ file: fileName(0), task: taskId(0, 0), from: 'learnable', to: 'too_hard' }],
    };
  }
  const duplicates = [];
  for (let f = 0; f + 1 < o.files; f++) {
    for (let i = 0; i < o.tasksPerFile; i += 100)
      duplicates.push({
        a: { file: fileName(f), task: taskId(f, i), line: i * 5 + 2 },
        b: { file: fileName(f + 1), task: taskId(f + 1, i), line: i * 5 + 2 },
        similarity: i % 200 === 0 ? 1 : 0.85,
        exact: i % 200 === 0,
      });
  }
  const contamination = [];
  for (let t = 0; t < total; t += 1000) {
    const f = Math.floor(t / o.tasksPerFile);
    const i = t % o.tasksPerFile;
    contamination.push({
      file: fileName(f),
      task: taskId(f, i),
      line: i * 5 + 2,
      benchmark_row: t,
      overlap:
        o.hostile && t === 0 ? HOSTILE_OVERLAP : `the thirteen words of prompt ${t} that the benchmark also has in it`,
      benchmark: 'gsm8k-test.jsonl',
    });
  }
  return {
    files: o.files,
    tasks: total,
    totals,
    per_file: perFile,
    models: modelStats,
    results,
    duplicates,
    contamination,
  };
}
