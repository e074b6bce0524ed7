#!/usr/bin/env node
// `npm start`: builds vtask and opens VS Code with the extension on examples/.
// The desktop `code` is used when it is installed; otherwise a real VS Code runs in the browser
// (code-server, installed once by scripts/install-vscode.sh) and its URL is printed.
//   --web     use the browser even when `code` is installed
//   --smoke   start, check that the page answers, and stop (used by the tests)
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO, runMain, runtimeInstalled, startCodeServer, workbenchUrl } from '../test/harness/vscode.mjs';

const args = new Set(process.argv.slice(2));
const examples = path.join(REPO, 'examples');

// The smoke check runs inside `npm test`, which has just built everything.
if (!args.has('--smoke')) {
  const build = spawnSync(process.execPath, [path.join(REPO, 'scripts/build.mjs')], { stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

const desktop = !args.has('--web') && !args.has('--smoke') && spawnSync('code', ['--version'], { stdio: 'ignore' }).status === 0;
if (desktop) {
  console.log('Opening VS Code with the vtask extension on examples/ ...');
  spawn('code', ['--new-window', `--extensionDevelopmentPath=${REPO}`, examples], { stdio: 'inherit', detached: true }).unref();
  process.exit(0);
}

await runMain(async () => {
  if (!runtimeInstalled()) {
    console.log('Installing VS Code for the browser (once, a few minutes)...');
    const r = spawnSync('bash', [path.join(REPO, 'scripts/install-vscode.sh')], { stdio: 'inherit' });
    if (r.status !== 0) return 1;
  }
  // A profile that persists between runs, so settings and open editors are kept.
  const dataDir = path.join(process.env.VTASK_CACHE ?? path.join(os.homedir(), '.cache/vtask'), args.has('--smoke') ? `start-smoke-${process.pid}` : 'start-profile');
  fs.mkdirSync(dataDir, { recursive: true });
  const server = await startCodeServer({ dataDir, settings: { 'workbench.startupEditor': 'readme' } });
  const url = workbenchUrl(server, examples, [['extensionDevelopmentPath', `vscode-remote://127.0.0.1:${server.port}${REPO}`]]);
  if (args.has('--smoke')) {
    const res = await fetch(url, { signal: AbortSignal.timeout(20_000) });
    const html = await res.text();
    const ok = res.ok && html.includes('vscode-workbench');
    console.log(ok ? `VS Code answered at ${server.url}` : `unexpected answer from ${server.url}: ${res.status}`);
    fs.rmSync(dataDir, { recursive: true, force: true });
    return ok ? 0 : 1;
  }
  console.log(`\nvtask is running in VS Code at:\n\n  ${url}\n\nOpen it in a browser. Press Ctrl-C to stop.`);
  await new Promise(() => {}); // until Ctrl-C; the harness stops the server on the way out
  return 0;
});
