// Files a task file names (environments, scripts) are looked for where a run looks: an error at
// the name when one is not there, from every parse path (`vtask check` parses in chunks without
// trees; the editor parses with them).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { formatIssue } from '../../src/core/taskfile/format';
import {
  parseTaskChunkPlain,
  parseTaskFile,
  parseWholeFile,
  TaskFileParser,
  type TaskFile,
} from '../../src/core/taskfile/parse';
import { missingFileIssues } from '../../src/core/taskfile/referencedFiles';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-files-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const FILE = `vtask: 1
defaults:
  verify: { script: { path: ./checks/default.mjs } }
tasks:
  - id: agent
    prompt: Which capital is stored under 'fr'?
    environment:
      run: ./envs/kv_store.mjs
    verify: { match: { answer: Paris } }
  - id: scripted
    prompt: p
    verify:
      all:
        - { match: { answer: a } }
        - { script: { path: checks/here.mjs } }
        - { script: { path: checks/gone.mjs } }
  - id: folder
    prompt: p
    environment: { run: ./envs }
`;

const lines = (parsed: TaskFile, file: string): string[] =>
  missingFileIssues(parsed, file).map((i) => formatIssue(file, parsed.lines, i));

test('an environment or script that is not there is an error at its name, relative to the task file', async () => {
  const file = path.join(dir, 'data', 'a.vtask');
  fs.mkdirSync(path.join(dir, 'data', 'checks'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'data', 'envs'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'data', 'checks', 'here.mjs'), 'export function verify() { return true; }\n');
  fs.writeFileSync(file, FILE);
  const expected = [
    `${file}:3:29: error: the script ./checks/default.mjs was not found (looked for ${path.join(dir, 'data', 'checks', 'default.mjs')})`,
    `${file}:8:12: error: the environment ./envs/kv_store.mjs was not found (looked for ${path.join(dir, 'data', 'envs', 'kv_store.mjs')})`,
    `${file}:16:29: error: the script checks/gone.mjs was not found (looked for ${path.join(dir, 'data', 'checks', 'gone.mjs')})`,
    `${file}:19:25: error: the environment ./envs is not a file`,
  ];
  // The editor's parse (trees), the whole-document parse, and the CLI's (chunks, no trees).
  assert.deepEqual(lines(parseTaskFile(FILE), file), expected);
  assert.deepEqual(lines(parseWholeFile(FILE), file), expected);
  const chunked = await new TaskFileParser().parseWith(FILE, async (texts) => texts.map(parseTaskChunkPlain));
  assert.deepEqual(lines(chunked, file), expected);
  // Once the files are there, nothing is reported.
  fs.writeFileSync(path.join(dir, 'data', 'checks', 'default.mjs'), '');
  fs.writeFileSync(path.join(dir, 'data', 'envs', 'kv_store.mjs'), '');
  fs.writeFileSync(path.join(dir, 'data', 'checks', 'gone.mjs'), '');
  assert.deepEqual(lines(parseTaskFile(FILE), file), [`${file}:19:25: error: the environment ./envs is not a file`]);
  // The same file elsewhere names other files: they are looked for next to it.
  assert.equal(lines(parseTaskFile(FILE), path.join(dir, 'b.vtask')).length, 5);
});
