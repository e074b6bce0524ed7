#!/usr/bin/env node
// `npm start`: builds vtask and opens VS Code with the extension live on examples/.
// The desktop `code` is used when it is installed (the extension loads from this folder);
// otherwise a real VS Code runs in the browser: code-server, installed once by
// scripts/install-vscode.sh, with the packaged extension installed into its profile (code-server
// ignores an `extensionDevelopmentPath` in the page's payload outside its smoke-test mode).
//   --web            use the browser even when `code` is installed
//   --no-build       skip the build (the tests have just built)
//   --profile DIR    the browser VS Code's profile (default: ~/.cache/vtask/start-profile, kept
//                    between runs so settings and open editors stay)
//   --port N         the port for code-server (default: a free one)
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  REPO,
  runMain,
  runtimeInstalled,
  startCodeServer,
  workbenchUrl,
  installVsix,
  packageVsix,
} from '../test/harness/vscode.mjs';
import { createHash } from 'node:crypto';
import { buildIsCurrent, inputsHash, walk } from './inputs-hash.mjs';

const { values: opts } = parseArgs({
  options: {
    web: { type: 'boolean', default: false },
    'no-build': { type: 'boolean', default: false },
    profile: { type: 'string' },
    port: { type: 'string' },
  },
});
const examples = path.join(REPO, 'examples');

// A build only when the sources changed since the last one: a second start begins at once.
if (!opts['no-build'] && buildIsCurrent()) console.log('Build is current (no source changed since the last build).');
else if (!opts['no-build']) {
  console.log('Building vtask ...');
  const build = spawnSync(process.execPath, [path.join(REPO, 'scripts/build.mjs')], { stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

const desktop = !opts.web && spawnSync('code', ['--version'], { stdio: 'ignore' }).status === 0;
if (desktop) {
  console.log('Opening VS Code with the vtask extension on examples/ ...');
  spawn('code', ['--new-window', `--extensionDevelopmentPath=${REPO}`, examples], {
    stdio: 'inherit',
    detached: true,
  }).unref();
  process.exit(0);
}

/** What the .vsix is made of: the build's inputs and the files packaged as they are. */
function packageInputsHash() {
  const h = createHash('sha256').update(inputsHash());
  const shipped = ['syntaxes', 'snippets', 'media', 'marketplace', 'models', 'walkthrough'].flatMap((d) =>
    walk(path.join(REPO, d), /./),
  );
  for (const p of [
    ...shipped,
    ...['language-configuration.json', 'CHANGELOG.md', '.vscodeignore'].map((f) => path.join(REPO, f)),
  ]) {
    if (fs.existsSync(p)) h.update(path.relative(REPO, p)).update('\0').update(fs.readFileSync(p)).update('\0');
  }
  return h.digest('hex');
}

/**
 * The extension as it ships, installed over the previous one, unless the profile already holds
 * the package of these very sources (the hash of the build's inputs is kept beside the .vsix).
 */
function installCurrentVsix(dataDir) {
  const vsix = path.join(dataDir, 'vtask.vsix');
  const stamp = `${vsix}.inputs-hash`;
  const hash = packageInputsHash();
  if (fs.existsSync(vsix) && fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === hash) {
    console.log('The extension in the profile is current: not packaged again.');
    return;
  }
  const t0 = Date.now();
  console.log('Packaging the extension as it ships (production bundles, about 10-40 s) ...');
  packageVsix(vsix);
  console.log(`Installing ${path.basename(vsix)} into the profile at ${dataDir} ...`);
  installVsix(dataDir, vsix);
  fs.writeFileSync(stamp, hash);
  console.log(`Extension installed (${((Date.now() - t0) / 1000).toFixed(0)} s).`);
}

await runMain(async () => {
  if (!runtimeInstalled()) {
    // The installer says what it installs, how big and where before it starts.
    const r = spawnSync('bash', [path.join(REPO, 'scripts/install-vscode.sh')], { stdio: 'inherit' });
    if (r.status !== 0) return 1;
  }
  const dataDir =
    opts.profile ?? path.join(process.env.VTASK_CACHE ?? path.join(os.homedir(), '.cache/vtask'), 'start-profile');
  fs.mkdirSync(dataDir, { recursive: true });
  installCurrentVsix(dataDir);
  const server = await startCodeServer({ dataDir, port: opts.port ? Number(opts.port) : undefined });
  const url = workbenchUrl(server, examples);
  console.log(`\nvtask is running in VS Code at:\n\n  ${url}\n\nOpen it in a browser. Press Ctrl-C to stop.`);
  await new Promise(() => {}); // until Ctrl-C; the harness stops the server on the way out
  return 0;
});
