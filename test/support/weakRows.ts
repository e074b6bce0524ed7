// Dataset rows that carry a weak verifier, as a lab has them: verl's Parquet and the same rows as
// JSON lines, exported from two tasks of which one (`anything`) accepts any answer. The tests of
// actions on rows (the CLI, the workbench, VS Code) must find it at its row.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { exportFiles } from '../../src/core/datasets/exportFiles';
import { rowFileText } from '../../src/core/datasets/rowFiles';

/** `anything` accepts any answer: an audit must find it in the rows that carry it. */
export const WEAK_TASKS = `vtask: 1
tasks:
  - id: add
    prompt: What is 17 + 25?
    verify:
      math: { answer: "42" }
  - id: anything
    prompt: Name a prime number.
    verify: { match: { answer: ".*", mode: regex } }
`;

/** Writes WEAK_TASKS as verl's rows to `parquet`, and the same rows as JSON lines to `jsonl`. */
export async function writeWeakRows(parquet: string, jsonl: string): Promise<void> {
  const src = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-weak-rows-'));
  try {
    fs.writeFileSync(path.join(src, 'w.vtask'), WEAK_TASKS);
    await exportFiles({ cwd: src, files: ['w.vtask'], format: 'verl', out: parquet, runs: false });
    fs.writeFileSync(jsonl, await rowFileText(parquet));
  } finally {
    fs.rmSync(src, { recursive: true, force: true });
  }
}
