// The Python package installs as users install it (`pip install ./integrations/python`), gives
// an importable `vtask_reward`, and leaves the source folder as it was: no build/ or egg-info.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { PYTHON_PATH, pythonMissing } from '../support/python';

/** pip's index arguments: the local index that `pip config list` names, alone (the default one may be unreachable). */
function indexArgs(): string[] {
  const config = spawnSync('python3', ['-m', 'pip', 'config', 'list'], { encoding: 'utf8' }).stdout ?? '';
  const urls = /extra-index-url='([^']+)'/.exec(config)?.[1]?.split(/\s+/).filter(Boolean) ?? [];
  return urls.flatMap((u, i) => [i === 0 ? '--index-url' : '--extra-index-url', u]);
}

const missing = pythonMissing(['pip']);

test('pip install of the Python package leaves its folder clean and the package importable', { skip: missing }, () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-pip-'));
  const src = path.join(tmp, 'src');
  fs.cpSync(PYTHON_PATH, src, { recursive: true, filter: (p) => !/__pycache__|\.egg-info|[/\\]build$/.test(p) });
  const before = fs.readdirSync(src).sort();
  const target = path.join(tmp, 'site');
  const r = spawnSync(
    'python3',
    [
      '-m',
      'pip',
      'install',
      '--quiet',
      '--disable-pip-version-check',
      '--no-deps',
      ...indexArgs(),
      '--target',
      target,
      src,
    ],
    {
      encoding: 'utf8',
      timeout: 300_000,
    },
  );
  assert.equal(r.status, 0, `pip install failed:\n${r.stderr}`);
  assert.deepEqual(fs.readdirSync(src).sort(), before, 'pip install left files in the package folder');
  const imported = spawnSync(
    'python3',
    ['-c', 'import vtask_reward, vtask_reward.verl, vtask_reward.trl; print(vtask_reward.__file__)'],
    {
      encoding: 'utf8',
      env: { ...process.env, PYTHONPATH: target },
    },
  );
  assert.equal(imported.status, 0, imported.stderr);
  assert.ok(imported.stdout.startsWith(target), `imported from ${imported.stdout}`);
  fs.rmSync(tmp, { recursive: true, force: true });
});
