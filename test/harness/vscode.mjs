// Shared helpers for the tests that run the extension in a real VS Code.
//
// The VS Code here is code-server (the VS Code server and web workbench, with the real Node
// extension host) on its own Node 24, opened in Debian's Chromium through playwright-core.
// scripts/install-vscode.sh installs it once into a cache outside the repo; this module finds
// it, starts it on a free 127.0.0.1 port with throwaway HOME/XDG/user-data/extensions folders,
// and makes sure no server or browser outlives the test process, whatever way it ends.
import { spawn, spawnSync, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import util from 'node:util';

export const REPO = path.resolve(import.meta.dirname, '../..');
export const RESULTS_DIR = path.join(REPO, 'test-results');
const INSTALLER = path.join(REPO, 'scripts/install-vscode.sh');

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

// Extension host and workbench lines that say nothing about vtask: code-server's marketplace
// (open-vsx, unreachable offline), built-in chat/agent/GitHub features, the workbench's
// connection chatter, and stack frames outside this repo (an error's first line is kept).
const NOISE = [
  /open-vsx\.org/,
  /^\[?(AgentHost|ChatModelSelection|AccountPolicyGate)\b/,
  /^Creation of workbench contribution/,
  /authentication provider 'github'/,
  /connection token|Creating a socket|reconnection-grace-time|builtin extensions cache|\[Service Worker\]/,
];
export const isNoise = (line) => NOISE.some((re) => re.test(line)) || (/^\s+at /.test(line) && !line.includes(REPO));

// ---------------------------------------------------------------------------------------------
// The runtime installed by scripts/install-vscode.sh.

/** The versions pinned in scripts/install-vscode.sh, so that they are written in one place. */
export function pinnedVersions() {
  const text = fs.readFileSync(INSTALLER, 'utf8');
  const pin = (name) => {
    const m = new RegExp(`^${name}=(\\S+)$`, 'm').exec(text);
    if (!m) throw new Error(`${INSTALLER} has no ${name}=`);
    return m[1];
  };
  return { node: pin('NODE24_VERSION'), codeServer: pin('CODE_SERVER_VERSION') };
}

export function runtimeDir() {
  const v = pinnedVersions();
  const cache = process.env.VTASK_CACHE || path.join(os.homedir(), '.cache/vtask');
  return path.join(cache, `vscode-cs${v.codeServer}-node${v.node}`);
}

/** Reads `export NAME='value'` lines (the env file the installer writes). */
function readEnvFile(file) {
  const env = {};
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const m = /^export (\w+)='([^']*)'$/.exec(line.trim());
    if (m) env[m[1]] = m[2];
  }
  return env;
}

/**
 * Where Node 24, code-server and Chromium are, or throws an error that says how to install them.
 * VTASK_NODE24, VTASK_CODE_SERVER and VTASK_CHROMIUM override each path.
 */
export function locateRuntime() {
  const dir = runtimeDir();
  const envFile = path.join(dir, 'env.sh');
  const installed = fs.existsSync(path.join(dir, '.complete')) && fs.existsSync(envFile) ? readEnvFile(envFile) : {};
  const node24 = process.env.VTASK_NODE24 || installed.VTASK_NODE24;
  const codeServer = process.env.VTASK_CODE_SERVER || installed.VTASK_CODE_SERVER;
  const chromiumPath = process.env.VTASK_CHROMIUM || '/usr/bin/chromium';
  const missing = [];
  if (!node24 || !fs.existsSync(node24)) missing.push(`Node 24 (${node24 || `${dir}/node24`})`);
  if (!codeServer || !fs.existsSync(codeServer)) missing.push(`code-server (${codeServer || `${dir}/code-server`})`);
  if (!fs.existsSync(chromiumPath)) missing.push(`Chromium (${chromiumPath})`);
  if (missing.length) {
    throw new SetupError(
      `The VS Code test runtime is not installed: missing ${missing.join(', ')}.\n` +
        `Run: bash scripts/install-vscode.sh   (once, about 3 minutes; cached in ${dir})`,
    );
  }
  return { dir, node24, codeServer, chromium: chromiumPath };
}

export function runtimeInstalled() {
  try {
    locateRuntime();
    return true;
  } catch {
    return false;
  }
}

/** Fails early, with the command to run, when the bundle that a run needs is missing. */
export function requireBuilt(...relPaths) {
  const missing = relPaths.filter((p) => !fs.existsSync(path.join(REPO, p)));
  if (missing.length) throw new SetupError(`Missing ${missing.join(', ')}: run \`npm run build\` first.`);
}

// ---------------------------------------------------------------------------------------------
// Cleanup: every server, browser and temp folder is registered here and released on exit,
// on SIGINT/SIGTERM/SIGHUP and on an uncaught error.

const cleanups = [];
const syncCleanups = new Set(); // what the 'exit' handler can still do synchronously
let exiting = false;
let handlersInstalled = false;

/** Registers an async cleanup; cleanups run last-in first-out. */
export function onCleanup(fn) {
  installHandlers();
  cleanups.push(fn);
}

export async function cleanup() {
  while (cleanups.length) {
    const fn = cleanups.pop();
    try {
      await fn();
    } catch (e) {
      console.error('cleanup:', e?.message ?? e);
    }
  }
}

/** A setup problem with a known remedy: reported by its message alone, without a stack. */
export class SetupError extends Error {}

/**
 * Runs main(), then the cleanups, then exits with main's code. A throw counts as one failed
 * test, so that the run still ends with a `N passed, N failed` line.
 */
export async function runMain(main) {
  let code;
  try {
    code = await main();
  } catch (e) {
    console.error(e instanceof SetupError ? `error: ${e.message}` : (e?.stack ?? String(e)));
    code = undefined;
  }
  await cleanup();
  if (code === undefined) {
    console.log('0 passed, 1 failed');
    code = 1;
  }
  process.exit(code);
}

// Installed with the first cleanup, so that importing this module changes nothing.
function installHandlers() {
  if (handlersInstalled) return;
  handlersInstalled = true;
  process.once('exit', () => {
    // Last resort, synchronous: the async cleanups did not run (process.exit elsewhere, a crash).
    for (const fn of syncCleanups) {
      try {
        fn();
      } catch {
        /* already gone */
      }
    }
  });
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(sig, () => {
      if (exiting) return;
      exiting = true;
      console.error(`\n${sig}: stopping code-server and the browser...`);
      const code = sig === 'SIGINT' ? 130 : 143;
      setTimeout(() => process.exit(code), 20_000).unref();
      void cleanup().finally(() => process.exit(code));
    });
  }
  process.on('uncaughtException', (e) => {
    console.error(e?.stack ?? String(e));
    void cleanup().finally(() => process.exit(1));
  });
}

export function makeTempDir(prefix) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  if (process.env.VTASK_KEEP_TMP !== '1') {
    const remove = () => {
      fs.rmSync(dir, { recursive: true, force: true });
      syncCleanups.delete(remove);
    };
    syncCleanups.add(remove);
    onCleanup(remove);
  }
  return dir;
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** Copies a fixture folder to a fresh temp folder, so that no run sees another's edits. */
export function copyWorkspace(fixture, tmpRoot) {
  const dest = path.join(tmpRoot, 'workspace');
  fs.cpSync(fixture, dest, { recursive: true });
  return dest;
}

// ---------------------------------------------------------------------------------------------
// code-server.

const DEFAULT_SETTINGS = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'chat.disableAIFeatures': true,
  'git.enabled': false,
  'security.workspace.trust.startupPrompt': 'never',
  'security.workspace.trust.emptyWindow': false,
};

function profileDirs(dataDir) {
  const home = path.join(dataDir, 'home');
  return {
    home,
    userData: path.join(dataDir, 'user-data'),
    extensions: path.join(dataDir, 'extensions'),
    env: {
      HOME: home,
      XDG_CONFIG_HOME: path.join(home, '.config'),
      XDG_DATA_HOME: path.join(home, '.local/share'),
      XDG_CACHE_HOME: path.join(home, '.cache'),
      XDG_RUNTIME_DIR: path.join(home, '.run'),
    },
  };
}

/**
 * Packages the extension as it ships (`npm run package`'s command: the marketplace README,
 * bundles only) into `out`; returns vsce's warnings. Throws with vsce's output when it fails.
 */
export function packageVsix(out) {
  const pkg = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8'));
  // `npm run package`'s command with the output replaced: node scripts/package.mjs -o FILE.
  const [cmd, ...rest] = pkg.scripts.package.split(/\s+/);
  const args = rest.map((a, i, all) => (all[i - 1] === '-o' ? out : a));
  const r = spawnSync(cmd === 'node' ? process.execPath : cmd, args, { cwd: REPO, encoding: 'utf8', timeout: 180_000 });
  if (r.status !== 0)
    throw new SetupError(
      `${pkg.scripts.package} failed:\n${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? r.error.message : ''}`,
    );
  return (r.stderr ?? '').split('\n').filter((l) => /warn/i.test(l));
}

/** Installs a .vsix into the profile under dataDir (before the server starts, so it is seen). */
export function installVsix(dataDir, vsix) {
  const rt = locateRuntime();
  const dirs = profileDirs(dataDir);
  for (const d of [dirs.home, dirs.userData, dirs.extensions]) fs.mkdirSync(d, { recursive: true });
  return execFileSync(
    rt.node24,
    [
      rt.codeServer,
      '--user-data-dir',
      dirs.userData,
      '--extensions-dir',
      dirs.extensions,
      '--install-extension',
      vsix,
      '--force',
    ],
    { env: { ...process.env, ...dirs.env }, encoding: 'utf8', timeout: 120_000 },
  );
}

/**
 * Starts code-server and waits until it listens.
 * @param {object} o
 * @param {string} o.dataDir       folder for HOME, XDG, user data, extensions and the server log
 * @param {boolean} [o.trust]      false (default): --disable-workspace-trust, every folder is trusted.
 *                                 true: workspace trust is on and the startup prompt is off, so the
 *                                 opened folder stays untrusted (Restricted Mode).
 * @param {object} [o.settings]    user settings merged over the defaults above
 * @param {string[]} [o.extraArgs] more code-server arguments
 * @param {object} [o.env]         more environment for the server (and so the extension host)
 * @param {number} [o.port]        the port (default: a free one)
 * @returns {Promise<{url: string, port: number, logFile: string, dirs: object, stop: () => Promise<void>}>}
 */
export async function startCodeServer({
  dataDir,
  trust = false,
  settings = {},
  extraArgs = [],
  env = {},
  port: wantedPort,
}) {
  const rt = locateRuntime();
  const dirs = profileDirs(dataDir);
  for (const d of [dirs.home, dirs.userData, dirs.extensions, dirs.env.XDG_RUNTIME_DIR])
    fs.mkdirSync(d, { recursive: true, mode: 0o700 });
  fs.mkdirSync(path.join(dirs.userData, 'User'), { recursive: true });
  fs.writeFileSync(
    path.join(dirs.userData, 'User/settings.json'),
    JSON.stringify({ ...DEFAULT_SETTINGS, ...settings }, null, 2),
  );

  const port = wantedPort ?? (await freePort());
  const logFile = path.join(dataDir, 'code-server.log');
  const log = fs.openSync(logFile, 'a');
  const args = [
    rt.codeServer,
    '--auth',
    'none',
    '--bind-addr',
    `127.0.0.1:${port}`,
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-getting-started-override',
    '--user-data-dir',
    dirs.userData,
    '--extensions-dir',
    dirs.extensions,
    ...(trust ? [] : ['--disable-workspace-trust']),
    ...extraArgs,
  ];
  // Its own process group: stop() signals the whole group, so the extension host, the file
  // watcher and the pty host go with the server.
  const proc = spawn(rt.node24, args, {
    env: { ...process.env, ...dirs.env, ...env },
    stdio: ['ignore', log, log],
    detached: true,
  });
  fs.closeSync(log);
  const killGroup = (sig) => {
    try {
      process.kill(-proc.pid, sig);
    } catch {
      /* gone */
    }
  };
  const syncKill = () => killGroup('SIGKILL');
  syncCleanups.add(syncKill);
  let exited = false;
  const exitP = new Promise((r) =>
    proc.once('exit', (code, sig) => {
      exited = true;
      r({ code, sig });
    }),
  );

  const stop = async () => {
    if (!exited) {
      killGroup('SIGTERM');
      const t = setTimeout(() => killGroup('SIGKILL'), 10_000);
      await exitP;
      clearTimeout(t);
    }
    killGroup('SIGKILL'); // children that outlived the server
    syncCleanups.delete(syncKill);
  };
  onCleanup(stop);

  const url = `http://127.0.0.1:${port}`;
  const timeoutMs = Number(process.env.VTASK_SERVER_TIMEOUT_MS || 60_000);
  const t0 = Date.now();
  for (;;) {
    if (exited) throw new Error(`code-server exited while starting; log ${logFile}:\n${tail(logFile)}`);
    if (Date.now() - t0 > timeoutMs)
      throw new Error(`code-server did not answer on ${url} within ${timeoutMs} ms; log ${logFile}:\n${tail(logFile)}`);
    try {
      const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) });
      if (res.ok) break;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return { url, port, logFile, dirs, stop };
}

export function tail(file, lines = 30) {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

// ---------------------------------------------------------------------------------------------
// Chromium.

/** Launches Debian's Chromium with a fresh profile; closed by cleanup(). */
export async function launchChromium(userDataDir, { viewport = { width: 1400, height: 900 } } = {}) {
  const rt = locateRuntime();
  const { chromium } = await import('playwright-core');
  fs.rmSync(userDataDir, { recursive: true, force: true });
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: rt.chromium,
    headless: true,
    viewport,
    args: CHROMIUM_ARGS,
    // The handlers above close the browser; Playwright's own would exit before the rest is cleaned.
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
  });
  onCleanup(() => context.close());
  const page = context.pages()[0] ?? (await context.newPage());
  if (process.env.VTASK_VERBOSE === '1') {
    page.on('console', (m) => console.log('[browser]', m.text().slice(0, 400)));
    page.on('pageerror', (e) => console.log('[browser error]', e.message));
  }
  return { context, page };
}

/** Workbench URL for a folder, with an optional test payload (see run-integration.mjs). */
export function workbenchUrl(server, folder, payload) {
  let url = `${server.url}/?folder=${encodeURIComponent(folder)}`;
  if (payload) url += `&payload=${encodeURIComponent(JSON.stringify(payload))}`;
  return url;
}

/** A path on the server as the workbench names it in a test payload. */
export function remoteUri(server, p) {
  return `vscode-remote://127.0.0.1:${server.port}${p}`;
}

/** Formats the arguments of an extension host console call the way console.log would. */
export function formatLogArgs(args) {
  const list = Array.isArray(args) ? args : [args];
  return util.format(...list);
}

export function screenshotPath(name) {
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  return path.join(RESULTS_DIR, `${name}.png`);
}

export const SUMMARY_RE = /^(?:\w+: )?(\d+) passed, (\d+) failed(?:, \d+ skipped)?$/;
