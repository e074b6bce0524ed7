// Datasets that are prompts with answers rather than training rows: IFEval's prompt files
// (`{key, prompt, instruction_id_list, kwargs}`) and question/answer JSONL such as GSM8K
// (`{question, answer}`, the answer after `####`). Import only: vtask's export formats are
// the training formats.
import { readTrace, rowId } from './common';
import type { ImportResult } from './format';
import { instruction } from './common';

export function fromIfevalRow(row: Record<string, unknown>, n: number): ImportResult {
  const { prompt, instruction_id_list: ids, kwargs } = row;
  if (typeof prompt !== 'string') return { error: '`prompt` is not text' };
  if (!Array.isArray(ids) || !ids.length) return { error: '`instruction_id_list` is not a non-empty list' };
  const kw = Array.isArray(kwargs) ? kwargs : [];
  const id = row.key !== undefined ? `ifeval/${String(row.key)}` : rowId(row, n, 'ifeval');
  return {
    task: {
      id,
      messages: [{ role: 'user', content: prompt }],
      verify: { constraints: ids.map((i, k) => instruction(String(i), kw[k])) },
    },
  };
}

/** GSM8K writes its worked solution, then `#### 72`: the gold answer is what follows `####`. */
export function goldOf(answer: string): string {
  const hash = answer.lastIndexOf('####');
  return (hash === -1 ? answer : answer.slice(hash + 4)).trim().replace(/(\d),(?=\d{3}\b)/g, '$1');
}

export function fromQaRow(row: Record<string, unknown>, n: number): ImportResult {
  const q = row.question ?? row.problem ?? row.prompt;
  const a = row.answer ?? row.solution;
  if (typeof q !== 'string') return { error: 'no `question` (or `problem`, `prompt`) text' };
  if (typeof a !== 'string' && typeof a !== 'number') return { error: 'no `answer` (or `solution`)' };
  return {
    task: {
      id: rowId(row, n, 'qa'),
      messages: [{ role: 'user', content: q }],
      verify: { math: { answer: goldOf(String(a)) } },
      meta: readTrace(row),
    },
  };
}
