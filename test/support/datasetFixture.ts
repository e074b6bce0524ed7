// Large Parquet datasets for the table view's tests and benchmark, written by the exporter
// itself (a format's toRow and the Parquet row sink): a few template tasks repeated with
// numbered ids and prompts, one of them with hostile text, every fourth row with a recorded run.
import { EXPORT_FORMATS } from '../../src/core/datasets/formats';
import type { ExportTask } from '../../src/core/datasets/format';
import { openRowSink } from '../../src/core/datasets/rowFiles';
import { parseTaskFile } from '../../src/core/taskfile/parse';
import { runnableTasks } from '../../src/core/taskfile/resolve';

/** Model text that must stay text in the page. */
export const HOSTILE_PROMPT = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script> What is 1 + 1?';

const TEMPLATES = `vtask: 1
tasks:
  - id: t/math
    prompt: "Natalia sold clips to 48 of her friends in April, and then half as many in May. How many clips did she sell altogether?"
    verify:
      math: { answer: "72" }
  - id: t/sea
    prompt: Describe the sea in under 50 words without commas.
    verify:
      constraints:
        - length_constraints:number_words: { relation: less than, num_words: 50 }
        - punctuation:no_comma
  - id: t/hostile
    prompt: ${JSON.stringify(HOSTILE_PROMPT)}
    verify:
      match: { answer: "2" }
  - id: t/capital
    system: Answer with one word.
    prompt: What is the capital of France?
    verify:
      match: { answer: Paris }
`;

/** Row `i`'s task id. */
export const rowTaskId = (i: number): string => `big/${String(i).padStart(6, '0')}`;

/**
 * Writes `rows` rows of `format` (verl by default) to `out`. Row i is template i % 4 with the
 * id rowTaskId(i) and its prompt suffixed with `(#i)`; rows with i % 4 === 1 carry a run.
 */
export async function writeDataset(out: string, rows: number, format = 'verl'): Promise<void> {
  const fmt = EXPORT_FORMATS.get(format);
  if (!fmt) throw new Error(`no format ${format}`);
  const templates = runnableTasks(parseTaskFile(TEMPLATES)).tasks;
  const settings = { version: 'test', promptStyle: 'conversational', viaVtask: false } as const;
  const sink = await openRowSink(out, 'parquet', fmt.columns(settings));
  for (let i = 0; i < rows; i++) {
    const t = templates[i % templates.length];
    if (!t) throw new Error('no template');
    const messages = t.messages.map((m, k) =>
      k === t.messages.length - 1 ? { ...m, content: `${m.content} (#${i})` } : m,
    );
    const task = { ...t, id: rowTaskId(i), messages, prompt: messages.at(-1)?.content ?? '' };
    const e: ExportTask = {
      file: 'big.vtask',
      task,
      index: i,
      ...(i % 4 === 1 ? { run: { model: 'test-model', samples: 8, pass_rate: 0.5, band: 'learnable' } } : {}),
    };
    const r = fmt.toRow(e, settings);
    if ('error' in r) throw new Error(r.error);
    await sink.write(r.row);
  }
  await sink.close();
}
