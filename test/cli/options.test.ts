// Every command reads its options from one table (src/cli/options.ts): through the built CLI, a
// value of the wrong type, a flag without its value and an unknown flag are each one usage line
// naming the flag (exit 2, nothing run), and the table's flags are the ones each help documents.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { commandTables } from '../../src/cli/dispatch';
import { tableFlags } from '../../src/cli/options';
import { runCliProcess } from '../support/cliProcess';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-options-'));
const file = path.join(dir, 'a.vtask');
fs.writeFileSync(
  file,
  'vtask: 1\ntasks:\n  - id: t\n    prompt: What is 2+2?\n    verify: { math: { answer: "4" } }\n',
);

async function usage(args: readonly string[]): Promise<string> {
  const r = await runCliProcess(args, { OPENAI_BASE_URL: '', OPENAI_API_KEY: '' });
  assert.equal(r.code, 2, `${args.join(' ')}: exit ${r.code}\n${r.stderr}`);
  assert.equal(r.stdout, '', `${args.join(' ')} printed to stdout`);
  return r.stderr.split('\n')[0] ?? '';
}

void test('a value of the wrong type is a usage error naming the flag and what it takes', async () => {
  const cases: [string[], string][] = [
    [['run', file, '--samples', 'many'], "vtask run: --samples takes an integer from 1 to 10000, not 'many'"],
    [['run', file, '--group-size=2.5'], "vtask run: --group-size takes an integer from 2 to 10000, not '2.5'"],
    [['serve', file, '--port', '70000'], "vtask serve: --port takes an integer from 0 to 65535, not '70000'"],
    [['serve', file, '--workers', 'all'], "vtask serve: --workers takes an integer from 1 to 256, not 'all'"],
    [
      ['stats', file, '--duplicate-threshold', '1.5'],
      "vtask stats: --duplicate-threshold takes a similarity from 0 to 1; got '1.5'",
    ],
    [
      ['stats', file, '--fail-on', 'typos'],
      "vtask stats: --fail-on takes duplicates, contamination (comma-separated); got 'typos'",
    ],
    [['audit', file, '--fail-on', 'urgent'], "vtask audit: --fail-on takes low, medium, high, critical; got 'urgent'"],
    [['audit', file, '--repeats', '1'], "vtask audit: --repeats takes an integer from 2 to 20, not '1'"],
    [
      ['export', file, '-f', 'verl', '-o', path.join(dir, 'o.parquet'), '--seed', '-1'],
      "vtask export: --seed takes a whole number from 0 to 999999999; got '-1'",
    ],
    [
      ['export', file, '-f', 'verl', '-o', path.join(dir, 'o.parquet'), '--prompt-style', 'fancy'],
      "vtask export: --prompt-style is conversational or plain; got 'fancy'",
    ],
    [
      ['diff', 'model:a', 'model:b', '--max-flips', 'few'],
      `vtask diff: --max-flips takes an integer from 0 to ${Number.MAX_SAFE_INTEGER}, not 'few'`,
    ],
    [['env', 'env.py', '--timeout-ms', '0'], "vtask env: --timeout-ms takes an integer from 1 to 3600000, not '0'"],
  ];
  for (const [args, line] of cases) assert.equal(await usage(args), line);
  assert.ok(!fs.existsSync(path.join(dir, 'o.parquet')), 'nothing was exported');
});

void test('a flag without its value is a usage error, also when the next argument is another flag', async () => {
  assert.equal(await usage(['run', file, '--task']), 'vtask run: --task needs a value');
  assert.equal(await usage(['run', file, '--task', '--json']), 'vtask run: --task needs a value');
  assert.equal(await usage(['import', file, '-o']), 'vtask import: -o needs a value');
});

void test("every command refuses an option not in its table, suggesting the table's nearest flag", async () => {
  for (const { name, options } of commandTables()) {
    const line = await usage([name, file, '--no-such-option']);
    assert.match(line, new RegExp(`^vtask ${name}: unknown option '--no-such-option'`));
    const flag = tableFlags(options).find((f) => f.startsWith('--') && f.length > 6);
    if (!flag) continue;
    // One letter short of a flag the command takes: the suggestion comes from the table.
    const typo = flag.slice(0, -1);
    assert.equal(
      await usage([name, file, typo]),
      `vtask ${name}: unknown option '${typo}' (did you mean '${flag}'?)`,
      `${name} ${typo}`,
    );
  }
});

void test('the help of each command documents every flag of its table', () => {
  const missing = commandTables().flatMap(({ name, help, options }) =>
    tableFlags(options)
      .filter((flag) => !new RegExp(`(^|[\\s\\[|])${flag}(?![\\w-])`).test(help))
      .map((flag) => `vtask ${name} ${flag}`),
  );
  assert.deepEqual(missing, [], 'flags the help does not mention');
});
