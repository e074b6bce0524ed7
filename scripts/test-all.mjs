// `npm test`: every check of the project, in order, each stage's output streamed as it runs:
//   lint, typecheck, build, unit tests (node --test over
//   out/test/{core,cli,grammar,scripts}/**/*.test.js), the task panel in Chromium on a static
//   page (node --test over test/browser/*.test.mjs), integration tests in a real VS Code
//   (test/harness/run-integration.mjs), end-to-end in the browser (run-e2e.mjs).
// Then a table of each stage's counts and, last, one line `N passed, N failed, N skipped` summing
// them all (lint, typecheck and build count as one check each). Exit 1 if anything failed.
//
//   node scripts/test-all.mjs [--no-build] [STAGE...]     e.g. `npm test -- unit integration`
//
// Honest by construction:
// - every stage that runs what out/ holds builds it first when its inputs changed (a hash of the
//   sources, scripts/inputs-hash.mjs, that a build writes to out/.inputs-hash); `--no-build`
//   refuses a stale out/ instead;
// - a stage that finds no tests, or whose tests report none, fails;
// - every skipped test is listed with its reason; with CI=true a skipped sandbox, conformance or
//   parity test fails, unless its reason starts with `needs:` (the machine lacks what it needs).
// VTASK_CANARY=1 adds test/canary (tests that fail on purpose: proof that failures are reported);
// VTASK_TEST_ONLY=TEXT keeps the unit test files whose path contains TEXT.
//
// The VS Code runtime is installed first (scripts/install-vscode.sh) when a VS Code stage is
// asked for and it is missing, so that `npm test` works right after `npm install`. The oldest
// supported VS Code (about 600 MB) is not: outside CI the e2e-floor stage skips, saying `needs:`
// and the command that installs it. Tests that read ../shared (the peers' conformance data,
// beside the repository in CI) skip with `needs:` where it is absent, and fail in CI.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runtimeInstalled } from '../test/harness/vscode.mjs';
import { buildIsCurrent, walk } from './inputs-hash.mjs';

const ROOT = path.resolve(import.meta.dirname, '..');
// No stage may depend on a model server that happens to run on this machine (Ollama, vLLM...):
// every process started from here, VS Code's extension host included, inherits this.
process.env.VTASK_NO_LOCAL_DISCOVERY ??= '1';
const SUMMARY_LINE = /^(?:\w+: )?(\d+) passed, (\d+) failed(?:, (\d+) skipped)?$/;

/** Runs a command with its output streamed through; resolves with the exit code and stdout. */
function run(cmd, args, env = {}) {
  return new Promise((resolve) => {
    const shown = [cmd === process.execPath ? 'node' : cmd, ...args]
      .map((a) => (a.startsWith(ROOT + path.sep) ? path.relative(ROOT, a) : a))
      .map((a) => (/\s/.test(a) ? JSON.stringify(a) : a));
    console.log(`$ ${shown.join(' ')}`);
    const child = spawn(cmd, args, {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.on('data', (d) => {
      stdout += d;
      process.stdout.write(d);
    });
    child.on('error', (e) => {
      console.error(`${cmd}: ${e.message}`);
      resolve({ code: 127, stdout });
    });
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 128 : 1), stdout }));
  });
}

/** Compiled unit tests whose source still exists (a deleted test must not run from a stale out/). */
function unitTestFiles() {
  const dirs = ['core', 'cli', 'grammar', 'scripts', ...(process.env.VTASK_CANARY === '1' ? ['canary'] : [])];
  const only = process.env.VTASK_TEST_ONLY;
  return dirs
    .flatMap((dir) => walk(path.join(ROOT, 'out/test', dir), /\.test\.js$/))
    .filter((js) => {
      const rel = path.relative(path.join(ROOT, 'out/test'), js).replace(/\.js$/, '');
      if (only && !rel.includes(only)) return false;
      return ['.ts', '.mts', '.tsx'].some((ext) => fs.existsSync(path.join(ROOT, 'test', rel + ext)));
    });
}

const inCI = process.env.CI === 'true';
/** Tests that must not be skipped in CI for want of a reason: a skip there hides a verdict. */
const MUST_RUN = /sandbox|conformance|parity/i;

/**
 * Every skip is printed; in CI a skip of a sandbox, conformance or parity test counts as a
 * failure unless its reason says what the machine lacks (`needs: ...`).
 */
function judgeSkips(skips) {
  let refused = 0;
  for (const s of skips) {
    const where = `${path.relative(ROOT, s.file) || '?'} › ${s.name}`;
    const excused = s.reason.startsWith('needs:');
    if (inCI && !excused && (MUST_RUN.test(path.basename(s.file)) || MUST_RUN.test(s.name))) {
      refused++;
      console.log(
        `FAILED (skipped in CI): ${where}${s.reason ? `: ${s.reason}` : ''} (a CI skip must say \`needs: ...\`)`,
      );
    } else console.log(`skipped: ${where}${s.reason ? `: ${s.reason}` : ''}`);
  }
  return refused;
}

/**
 * Runs node's test runner on `files`: spec output for people on stdout, TAP into a file for
 * the counts (`# pass N`, `# fail N`, `# skipped N`), and each skip with its reason into another
 * (scripts/test-reporter.mjs). No test at all is a failure: a suite that runs nothing proves nothing.
 */
async function nodeTests(files) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-tests-'));
  const tap = path.join(dir, 'tests.tap');
  const skipsFile = path.join(dir, 'skips.jsonl');
  const { code } = await run(process.execPath, [
    '--test',
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    '--test-reporter=tap',
    `--test-reporter-destination=${tap}`,
    `--test-reporter=${path.join(ROOT, 'scripts/test-reporter.mjs')}`,
    `--test-reporter-destination=${skipsFile}`,
    ...files,
  ]);
  const text = fs.existsSync(tap) ? fs.readFileSync(tap, 'utf8') : '';
  const skips = fs.existsSync(skipsFile)
    ? fs
        .readFileSync(skipsFile, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : [];
  fs.rmSync(dir, { recursive: true, force: true });
  const count = (key) => Number((new RegExp(`^# ${key} (\\d+)$`, 'm').exec(text) ?? [])[1] ?? 0);
  const refused = judgeSkips(skips);
  const passed = count('pass');
  const skipped = count('skipped') - refused;
  let failed = count('fail') + count('cancelled') + refused;
  if (code !== 0 && failed === 0) failed = 1;
  if (passed + failed + skipped === 0) {
    console.log(`no tests ran in ${files.length} file(s)`);
    return { passed, failed: 1, skipped, note: 'no tests ran' };
  }
  return { passed, failed, skipped, note: refused ? `${refused} skipped in CI` : undefined };
}

const checkStage = (cmd, args) => async () => {
  const { code } = await run(cmd, args);
  return code === 0 ? { passed: 1, failed: 0 } : { passed: 0, failed: 1 };
};

/**
 * A harness ends with `N passed, N failed[, N skipped]`; a non-zero exit without a count is one
 * failure, and so is a harness that ran no test.
 */
const harnessStage =
  (script, args = [], env = {}) =>
  async () => {
    if (!(await ensureBuild())) return { passed: 0, failed: 1, note: 'build failed or stale' };
    if (runtimeMissing) return { passed: 0, failed: 1, note: 'no VS Code runtime' };
    const { code, stdout } = await run(process.execPath, [path.join(ROOT, script), ...args], env);
    const last = stdout
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => SUMMARY_LINE.test(l))
      .pop();
    const m = last ? SUMMARY_LINE.exec(last) : null;
    const passed = m ? Number(m[1]) : 0;
    const skipped = m?.[3] ? Number(m[3]) : 0;
    let failed = m ? Number(m[2]) : 0;
    if (code !== 0 && failed === 0) failed = 1;
    if (passed + failed + skipped === 0) return { passed, failed: 1, note: 'no tests ran' };
    return { passed, failed, skipped };
  };

let runtimeMissing = false;
const noBuild = process.argv.includes('--no-build');
let building;

/**
 * Builds out/ when its inputs changed since the last build (once per run); with `--no-build`, a
 * stale out/ is refused instead. Resolves true when out/ matches the sources.
 */
function ensureBuild() {
  building ??= (async () => {
    if (buildIsCurrent()) {
      console.log('out/ is up to date with its sources');
      return { ok: true, built: false };
    }
    if (noBuild) {
      console.log('out/ was not built from the sources as they are now: run `npm run build`, or drop --no-build');
      return { ok: false, built: false };
    }
    // scripts/build.mjs writes out/.inputs-hash when it succeeds.
    const { code } = await run('npm', ['run', '--silent', 'build']);
    return { ok: code === 0, built: true };
  })();
  return building.then((b) => b.ok);
}

const STAGES = [
  { name: 'lint', run: checkStage('npx', ['eslint', '.']) },
  { name: 'typecheck', run: checkStage('npx', ['tsc', '--noEmit', '-p', '.']) },
  {
    name: 'build',
    async run() {
      const ok = await ensureBuild();
      const { built } = await building;
      if (ok && !built) return { passed: 0, failed: 0, note: 'up to date' };
      return ok
        ? { passed: 1, failed: 0 }
        : { passed: 0, failed: 1, note: built ? 'build failed' : 'stale (--no-build)' };
    },
  },
  {
    name: 'unit',
    async run() {
      if (!(await ensureBuild())) return { passed: 0, failed: 1, note: 'build failed or stale' };
      // The dataset tests read exports with pyarrow, datasets and the OpenAI SDK, installed by
      // scripts/install-python-deps.sh before any stage (.ci/run does; nothing is installed from
      // here, unasked): without them those tests fail in CI and skip with `needs:` elsewhere.
      const files = unitTestFiles();
      if (!files.length) {
        console.log('no compiled unit tests under out/test/{core,cli,grammar,scripts}');
        return { passed: 0, failed: 1, note: 'no test files' };
      }
      const r = await nodeTests(files);
      return { ...r, note: r.note ?? `${files.length} files` };
    },
  },
  {
    // The task panel's page in Chromium, without VS Code: skipped only when there is no Chromium.
    name: 'browser',
    async run() {
      if (!(await ensureBuild())) return { passed: 0, failed: 1, note: 'build failed or stale' };
      const chromium = process.env.VTASK_CHROMIUM || '/usr/bin/chromium';
      if (!fs.existsSync(chromium)) {
        console.log(`skipped: needs: Chromium at ${chromium} (set VTASK_CHROMIUM)`);
        return { passed: 0, failed: 0, skipped: 1, note: 'needs: Chromium' };
      }
      const files = walk(path.join(ROOT, 'test/browser'), /\.test\.mjs$/);
      if (!files.length) return { passed: 0, failed: 1, note: 'no test files' };
      const r = await nodeTests(files);
      return { ...r, note: r.note ?? `${files.length} files` };
    },
  },
  {
    // The npm tarball installed and run offline, and the .vsix checked for the marketplaces.
    name: 'package',
    run: harnessStage('test/harness/run-package.mjs'),
  },
  {
    name: 'integration',
    vscode: true,
    run: harnessStage('test/harness/run-integration.mjs'),
  },
  {
    // `npm start` (the quick start's first line): the started editor, driven as a user would.
    name: 'start',
    vscode: true,
    run: harnessStage('test/harness/run-start.mjs'),
  },
  {
    // The same extension in Restricted Mode: the tests about trust, with workspace trust on.
    name: 'untrusted',
    vscode: true,
    run: harnessStage('test/harness/run-integration.mjs', ['--untrusted'], { VTASK_TEST_GREP: 'trust' }),
  },
  {
    name: 'e2e',
    vscode: true,
    run: harnessStage('test/harness/run-e2e.mjs'),
  },
  {
    // The same end-to-end run on the oldest VS Code that engines.vscode admits (1.90, through
    // code-server 4.90.3 on this Node), so the floor is tested, not only type-checked.
    // Installing it downloads about 600 MB (and may apt-get ripgrep): .ci/run does that first;
    // a developer's `npm test` without it skips the stage and says how to install it.
    name: 'e2e-floor',
    vscode: true,
    async run() {
      const script = path.join(ROOT, 'scripts/install-vscode-floor.sh');
      const version = /^CODE_SERVER_FLOOR=(\S+)$/m.exec(fs.readFileSync(script, 'utf8'))?.[1];
      const cache = process.env.VTASK_CACHE || path.join(os.homedir(), '.cache/vtask');
      const dir = path.join(cache, `vscode-floor-cs${version}`);
      const entry = path.join(dir, 'node_modules/code-server/out/node/entry.js');
      if (!inCI && !(fs.existsSync(path.join(dir, '.complete')) && fs.existsSync(entry))) {
        const needs = `needs: code-server ${version} (VS Code 1.90, about 600 MB): bash scripts/install-vscode-floor.sh`;
        console.log(`skipped: ${needs}`);
        return { passed: 0, failed: 0, skipped: 1, note: needs };
      }
      const { code } = await run('bash', [script]);
      if (code !== 0) return { passed: 0, failed: 1, note: 'the floor VS Code did not install' };
      const r = await harnessStage('test/harness/run-e2e.mjs', [], {
        VTASK_CODE_SERVER: entry,
        VTASK_NODE24: process.execPath,
        VTASK_E2E_PREFIX: 'e2e-floor',
      })();
      return { ...r, note: r.note ?? `VS Code 1.90 (code-server ${version})` };
    },
  },
];

const wanted = process.argv.slice(2).filter((a) => a !== '--no-build');
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
  results.push({
    name: 'install',
    passed: runtimeMissing ? 0 : 1,
    failed: runtimeMissing ? 1 : 0,
    ms: Date.now() - s0,
  });
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
console.log(
  '\n' +
    pad('stage', 13) +
    pad('result', 8) +
    lpad('passed', 7) +
    lpad('failed', 7) +
    lpad('skipped', 8) +
    lpad('time', 9) +
    '  note',
);
for (const r of results) {
  const result = r.failed ? 'FAIL' : r.passed ? 'ok' : '-';
  console.log(
    pad(r.name, 13) +
      pad(result, 8) +
      lpad(r.passed, 7) +
      lpad(r.failed, 7) +
      lpad(r.skipped ?? 0, 8) +
      lpad(`${(r.ms / 1000).toFixed(1)}s`, 9) +
      (r.note ? `  ${r.note}` : ''),
  );
}
const sum = (key) => results.reduce((n, r) => n + (r[key] ?? 0), 0);
const failed = sum('failed');
console.log(`total ${((Date.now() - t0) / 1000).toFixed(1)}s`);
console.log(`${sum('passed')} passed, ${failed} failed, ${sum('skipped')} skipped`);
process.exit(failed ? 1 : 0);
