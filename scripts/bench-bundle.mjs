// What the extension costs before it does anything: the .vsix as `npm run package` makes it, each
// bundle in it, and the CPU time and heap of loading out/extension.js from it (what any activation
// pays, a JSONL file of another project included) and of loading it with its second stage,
// out/extension.js then out/extensionMain.js (what a task file pays; a checkout without the second
// stage pays the first alone). Loading is `require()` of the bundles in a fresh Node process with
// a stand-in `vscode` module (every name a no-op class): module evaluation, not VS Code's activation.
// `--base COMMIT` measures that commit the same way (in a temporary git worktree) for comparison.
// Prints human lines, then one JSON line.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeVscodeStub } from './vscode-stub.mjs';

const ROOT = path.resolve(import.meta.dirname, '..');
const RUNS = 7;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-bench-bundle-'));
process.once('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));

/** The .vsix of the checkout at root, made by its own `npm run package` command. */
function packageVsix(root, out) {
  const cmd = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).scripts.package.split(/\s+/);
  const args = cmd.slice(1).map((a, i, all) => (all[i - 1] === '-o' ? out : a));
  const bin = cmd[0] === 'node' ? process.execPath : path.join(root, 'node_modules/.bin', cmd[0]);
  const r = spawnSync(bin, args, { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`${cmd.join(' ')}: ${r.stdout}${r.stderr}`);
}

/** Files of a zip with their sizes, unpacked into dir (Python's zipfile: no new dependency). */
function unzip(file, dir) {
  const py =
    'import sys, zipfile, json; z = zipfile.ZipFile(sys.argv[1]); z.extractall(sys.argv[2]); print(json.dumps({i.filename: i.file_size for i in z.infolist()}))';
  return JSON.parse(execFileSync('python3', ['-c', py, file, dir], { encoding: 'utf8' }));
}

/** Median CPU ms and heap MB of requiring the bundles in order, each time in a fresh process. */
function loadCost(bundles, stubDir) {
  const code = `const c0 = process.cpuUsage(); for (const b of ${JSON.stringify(bundles)}) require(b); const c = process.cpuUsage(c0);
global.gc(); console.log(JSON.stringify({ cpu: (c.user + c.system) / 1000, heap: process.memoryUsage().heapUsed / 1048576 }));`;
  const runs = [];
  for (let i = 0; i < RUNS; i++) {
    const r = spawnSync(process.execPath, ['--expose-gc', '-e', code], {
      encoding: 'utf8',
      env: { ...process.env, NODE_PATH: stubDir },
    });
    if (r.status !== 0) throw new Error(`loading ${bundles.join(', ')}: ${r.stderr}`);
    runs.push(JSON.parse(r.stdout));
  }
  const median = (k) => runs.map((x) => x[k]).sort((a, b) => a - b)[Math.floor(RUNS / 2)];
  return { cpu: median('cpu'), heap: median('heap') };
}

function measure(root, name, stubDir) {
  const vsix = path.join(tmp, `${name}.vsix`);
  packageVsix(root, vsix);
  const dir = path.join(tmp, name);
  const files = unzip(vsix, dir);
  const bundles = Object.fromEntries(
    Object.entries(files)
      .filter(([f]) => /^extension\/out\/[^/]+\.js$/.test(f))
      .map(([f, size]) => [f.slice('extension/out/'.length), size]),
  );
  const unpacked = Object.values(files).reduce((a, b) => a + b, 0);
  const first = path.join(dir, 'extension/out/extension.js');
  const second = path.join(dir, 'extension/out/extensionMain.js');
  const load = loadCost([first], stubDir);
  const full = fs.existsSync(second) ? loadCost([first, second], stubDir) : load;
  // Node itself, requiring an empty file: subtracted so the figure is the bundle's.
  const empty = loadCost([path.join(stubDir, 'empty.js')], stubDir);
  return {
    vsix_bytes: fs.statSync(vsix).size,
    unpacked_bytes: unpacked,
    bundles,
    load_cpu_ms: +(load.cpu - empty.cpu).toFixed(1),
    load_heap_mb: +(load.heap - empty.heap).toFixed(1),
    full_load_cpu_ms: +(full.cpu - empty.cpu).toFixed(1),
    full_load_heap_mb: +(full.heap - empty.heap).toFixed(1),
  };
}

/** A worktree of commit with this checkout's node_modules, built as its `npm run build` does. */
function checkout(commit) {
  const dir = path.join(tmp, 'base');
  execFileSync('git', ['-C', ROOT, 'worktree', 'add', '--detach', dir, commit], { stdio: 'ignore' });
  process.once('exit', () => spawnSync('git', ['-C', ROOT, 'worktree', 'remove', '--force', dir]));
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  execFileSync(process.execPath, [path.join(dir, 'scripts/build.mjs')], { cwd: dir, stdio: 'ignore' });
  return dir;
}

const stubDir = writeVscodeStub(path.join(tmp, 'stub'));
fs.writeFileSync(path.join(stubDir, 'empty.js'), '');

const mb = (n) => `${(n / 1e6).toFixed(2)} MB`;
const print = (label, m) => {
  console.log(
    `${label}: .vsix ${mb(m.vsix_bytes)} (${mb(m.unpacked_bytes)} unpacked); loading out/extension.js ${m.load_cpu_ms} ms CPU, ${m.load_heap_mb} MB heap; with the second stage ${m.full_load_cpu_ms} ms CPU, ${m.full_load_heap_mb} MB heap`,
  );
  console.log(
    `  bundles: ${Object.entries(m.bundles)
      .map(([f, n]) => `${f} ${(n / 1024).toFixed(0)} KiB`)
      .join(', ')}`,
  );
};
const figures = {};
const b = process.argv.indexOf('--base');
if (b >= 0) {
  figures.base = { commit: process.argv[b + 1], ...measure(checkout(process.argv[b + 1]), 'base', stubDir) };
  print(`base ${figures.base.commit}`, figures.base);
}
figures.current = measure(ROOT, 'current', stubDir);
print('this checkout', figures.current);
console.log(JSON.stringify(figures));
