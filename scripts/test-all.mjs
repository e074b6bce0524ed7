// `npm test`: every check of the project, in order, each stage's output streamed as it runs:
//   lint, typecheck, build (when out/ is missing or older than its sources), unit tests
//   (node --test over out/test/{core,cli,grammar}/**/*.test.js), the task panel in Chromium on
//   a static page (node --test over test/browser/*.test.mjs), integration tests in a real
//   VS Code (test/harness/run-integration.mjs), end-to-end in the browser (run-e2e.mjs).
// Then a table of each stage's counts and, last, one line `N passed, N failed` summing them all
// (lint, typecheck and build count as one check each). Exit 1 if anything failed.
//
//   node scripts/test-all.mjs [STAGE...]     e.g. `npm test -- unit integration`
//
// The VS Code runtime is installed first (scripts/install-vscode.sh) when a VS Code stage is
// asked for and it is missing, so that `npm test` works right after `npm install`.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runtimeInstalled } from '../test/harness/vscode.mjs';

const ROOT = path.resolve(import.meta.dirname, '..');
const SUMMARY_LINE = /^(?:\w+: )?(\d+) passed, (\d+) failed(?:, \d+ skipped)?$/;

/** Every file under dir (recursively) whose name matches re. */
function walk(dir, re, skip = () => false) {
  if (!fs.existsSync(dir)) return [];
  const out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) { if (!skip(p)) out.push(...walk(p, re, skip)); }
    else if (re.test(e.name)) out.push(p);
  }
  return out.sort();
}

/** Runs a command with its output streamed through; resolves with the exit code and stdout. */
function run(cmd, args, env = {}) {
  return new Promise((resolve) => {
    const shown = [cmd === process.execPath ? 'node' : cmd, ...args]
      .map((a) => (a.startsWith(ROOT + path.sep) ? path.relative(ROOT, a) : a))
      .map((a) => (/\s/.test(a) ? JSON.stringify(a) : a));
    console.log(`$ ${shown.join(' ')}`);
    const child = spawn(cmd, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.on('data', (d) => { stdout += d; process.stdout.write(d); });
    child.on('error', (e) => { console.error(`${cmd}: ${e.message}`); resolve({ code: 127, stdout }); });
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 128 : 1), stdout }));
  });
}

/** The build is stale when an output is missing or older than the newest source. */
function buildIsStale() {
  // Each bundle whose entry point exists (scripts/build.mjs builds these).
  const targets = { 'src/vscode/extension.ts': 'out/extension.js', 'src/cli/main.ts': 'out/cli.js', 'src/webview/main.ts': 'out/webview.js' };
  const outputs = Object.entries(targets).filter(([src]) => fs.existsSync(path.join(ROOT, src))).map(([, out]) => path.join(ROOT, out));
  if (!outputs.length || !outputs.every((p) => fs.existsSync(p))) return true;
  const oldestOutput = Math.min(...outputs.map((p) => fs.statSync(p).mtimeMs));
  const skip = (p) => /[/\\](fixtures|harness|node_modules)$/.test(p);
  const inputs = [
    ...walk(path.join(ROOT, 'src'), /\.(ts|tsx|js|mjs|json|css|html)$/),
    ...walk(path.join(ROOT, 'test'), /\.ts$/, skip),
    ...['package.json', 'tsconfig.json', 'scripts/build.mjs'].map((p) => path.join(ROOT, p)).filter((p) => fs.existsSync(p)),
  ];
  return inputs.some((p) => fs.statSync(p).mtimeMs > oldestOutput);
}

/** Compiled unit tests whose source still exists (a deleted test must not run from a stale out/). */
function unitTestFiles() {
  return ['core', 'cli', 'grammar']
    .flatMap((dir) => walk(path.join(ROOT, 'out/test', dir), /\.test\.js$/))
    .filter((js) => {
      const rel = path.relative(path.join(ROOT, 'out/test'), js).replace(/\.js$/, '');
      return ['.ts', '.mts', '.tsx'].some((ext) => fs.existsSync(path.join(ROOT, 'test', rel + ext)));
    });
}

/**
 * Runs node's test runner on `files`: spec output for people on stdout, TAP into a file for
 * the counts (`# pass N`, `# fail N`, `# skipped N`).
 */
async function nodeTests(files) {
  const tap = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-tests-')), 'tests.tap');
  const { code } = await run(process.execPath, ['--test',
    '--test-reporter=spec', '--test-reporter-destination=stdout',
    '--test-reporter=tap', `--test-reporter-destination=${tap}`, ...files]);
  const text = fs.existsSync(tap) ? fs.readFileSync(tap, 'utf8') : '';
  fs.rmSync(path.dirname(tap), { recursive: true, force: true });
  const count = (key) => Number((new RegExp(`^# ${key} (\\d+)$`, 'm').exec(text) ?? [])[1] ?? 0);
  let failed = count('fail') + count('cancelled');
  if (code !== 0 && failed === 0) failed = 1;
  return { passed: count('pass'), failed, skipped: count('skipped') };
}

const checkStage = (cmd, args) => async () => {
  const { code } = await run(cmd, args);
  return code === 0 ? { passed: 1, failed: 0 } : { passed: 0, failed: 1 };
};

/** A harness ends with `N passed, N failed`; a non-zero exit without a count is one failure. */
const harnessStage = (script, args = [], env = {}) => async () => {
  const { code, stdout } = await run(process.execPath, [path.join(ROOT, script), ...args], env);
  const last = stdout.split('\n').map((l) => l.trim()).filter((l) => SUMMARY_LINE.test(l)).pop();
  const m = last ? SUMMARY_LINE.exec(last) : null;
  const passed = m ? Number(m[1]) : 0;
  let failed = m ? Number(m[2]) : 0;
  if (code !== 0 && failed === 0) failed = 1;
  return { passed, failed };
};

let buildFailed = false;
let runtimeMissing = false;

const STAGES = [
  { name: 'lint', run: checkStage('npx', ['eslint', '.']) },
  { name: 'typecheck', run: checkStage('npx', ['tsc', '--noEmit', '-p', '.']) },
  {
    name: 'build',
    async run() {
      if (!buildIsStale()) {
        console.log('out/ is up to date');
        return { passed: 0, failed: 0, note: 'up to date' };
      }
      const { code } = await run('npm', ['run', '--silent', 'build']);
      buildFailed = code !== 0;
      return buildFailed ? { passed: 0, failed: 1 } : { passed: 1, failed: 0 };
    },
  },
  {
    name: 'unit',
    async run() {
      if (buildFailed) return { passed: 0, failed: 1, note: 'build failed' };
      const files = unitTestFiles();
      if (!files.length) {
        console.log('no compiled unit tests under out/test/{core,cli,grammar}');
        return { passed: 0, failed: 0, note: 'no test files' };
      }
      const { passed, failed } = await nodeTests(files);
      return { passed, failed, note: `${files.length} files` };
    },
  },
  {
    // The task panel's page in Chromium, without VS Code: skipped only when there is no Chromium.
    name: 'browser',
    async run() {
      if (buildFailed) return { passed: 0, failed: 1, note: 'build failed' };
      const chromium = process.env.VTASK_CHROMIUM || '/usr/bin/chromium';
      if (!fs.existsSync(chromium)) {
        console.log(`no Chromium at ${chromium} (set VTASK_CHROMIUM): skipped`);
        return { passed: 0, failed: 0, note: 'skipped: no Chromium' };
      }
      const files = walk(path.join(ROOT, 'test/browser'), /\.test\.mjs$/);
      if (!files.length) return { passed: 0, failed: 0, note: 'no test files' };
      const { passed, failed, skipped } = await nodeTests(files);
      return { passed, failed, note: skipped ? `${skipped} skipped` : `${files.length} files` };
    },
  },
  {
    // The npm tarball installed and run offline, and the .vsix checked for the marketplaces.
    name: 'package',
    async run() {
      if (buildFailed) return { passed: 0, failed: 1, note: 'build failed' };
      return harnessStage('test/harness/run-package.mjs')();
    },
  },
  {
    name: 'integration',
    vscode: true,
    async run() {
      if (buildFailed || runtimeMissing) return { passed: 0, failed: 1, note: buildFailed ? 'build failed' : 'no VS Code runtime' };
      return harnessStage('test/harness/run-integration.mjs')();
    },
  },
  {
    // `npm start` (the quick start's first line): the started editor, driven as a user would.
    name: 'start',
    vscode: true,
    async run() {
      if (buildFailed || runtimeMissing) return { passed: 0, failed: 1, note: buildFailed ? 'build failed' : 'no VS Code runtime' };
      return harnessStage('test/harness/run-start.mjs')();
    },
  },
  {
    // The same extension in Restricted Mode: the tests about trust, with workspace trust on.
    name: 'untrusted',
    vscode: true,
    async run() {
      if (buildFailed || runtimeMissing) return { passed: 0, failed: 1, note: buildFailed ? 'build failed' : 'no VS Code runtime' };
      return harnessStage('test/harness/run-integration.mjs', ['--untrusted'], { VTASK_TEST_GREP: 'trust' })();
    },
  },
  {
    name: 'e2e',
    vscode: true,
    async run() {
      if (buildFailed || runtimeMissing) return { passed: 0, failed: 1, note: buildFailed ? 'build failed' : 'no VS Code runtime' };
      return harnessStage('test/harness/run-e2e.mjs')();
    },
  },
];

const wanted = process.argv.slice(2);
const unknown = wanted.filter((w) => !STAGES.some((s) => s.name === w));
if (unknown.length) {
  console.error(`unknown stage(s): ${unknown.join(', ')}; stages: ${STAGES.map((s) => s.name).join(', ')}`);
  process.exit(2);
}
const selected = STAGES.filter((s) => !wanted.length || wanted.includes(s.name));
const results = [];
const t0 = Date.now();

if (selected.some((s) => s.vscode) && !runtimeInstalled()) {
  console.log('\n=== install VS Code runtime (scripts/install-vscode.sh) ===');
  const s0 = Date.now();
  const { code } = await run('bash', [path.join(ROOT, 'scripts/install-vscode.sh')]);
  runtimeMissing = code !== 0 || !runtimeInstalled();
  results.push({ name: 'install', passed: runtimeMissing ? 0 : 1, failed: runtimeMissing ? 1 : 0, ms: Date.now() - s0 });
}

for (const stage of selected) {
  console.log(`\n=== ${stage.name} ===`);
  const s0 = Date.now();
  let r;
  try {
    r = await stage.run();
  } catch (e) {
    console.error(e?.stack ?? String(e));
    r = { passed: 0, failed: 1, note: 'crashed' };
  }
  results.push({ name: stage.name, ...r, ms: Date.now() - s0 });
}

const pad = (s, n) => String(s).padEnd(n);
const lpad = (s, n) => String(s).padStart(n);
console.log('\n' + pad('stage', 13) + pad('result', 8) + lpad('passed', 7) + lpad('failed', 7) + lpad('time', 9) + '  note');
for (const r of results) {
  const result = r.failed ? 'FAIL' : r.passed ? 'ok' : '-';
  console.log(pad(r.name, 13) + pad(result, 8) + lpad(r.passed, 7) + lpad(r.failed, 7) + lpad(`${(r.ms / 1000).toFixed(1)}s`, 9) + (r.note ? `  ${r.note}` : ''));
}
const passed = results.reduce((n, r) => n + r.passed, 0);
const failed = results.reduce((n, r) => n + r.failed, 0);
console.log(`total ${((Date.now() - t0) / 1000).toFixed(1)}s`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
