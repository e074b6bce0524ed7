// Python as the interoperability tests drive it: the real readers and trainers (pyarrow, datasets,
// TRL, Ray) with the repository's `vtask_reward` package on the path. A machine without them skips
// with a `needs:` reason; in CI (CI=true) their absence fails, so a missing install never hides.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from './conformance';

// From the repository, not the working directory: a test may run from anywhere.
export const PYTHON_PATH = path.join(REPO_ROOT, 'integrations/python');
const VTASK_CLI_JS = path.join(REPO_ROOT, 'out/cli.js');

/** Why these modules cannot be imported (undefined when they can); fails instead in CI. */
export function pythonMissing(modules: readonly string[]): string | undefined {
  const r = spawnSync('python3', ['-c', `import ${modules.join(', ')}`], { encoding: 'utf8', timeout: 120_000 });
  if (r.status === 0) return undefined;
  const why = `needs: python3 with ${modules.join(', ')} (scripts/install-python-deps.sh): ${(r.stderr || String(r.error)).trim().split('\n').at(-1)}`;
  assert.ok(!process.env.CI, why);
  return why;
}

/** Runs `python3 ARGS` offline (no hub), with the package importable; returns its stdout. */
export function python(args: readonly string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 300_000): string {
  const r = spawnSync('python3', args, {
    encoding: 'utf8',
    timeout: timeoutMs,
    killSignal: 'SIGKILL',
    maxBuffer: 1 << 26,
    // VTASK_CLI: the package starts environments and servers with this build's CLI.
    env: {
      ...process.env,
      PYTHONPATH: PYTHON_PATH,
      HF_DATASETS_OFFLINE: '1',
      HF_HUB_OFFLINE: '1',
      VTASK_CLI: `${process.execPath} ${VTASK_CLI_JS}`,
      ...env,
    },
  });
  assert.equal(r.error, undefined, `python3 ${args[0]}: ${String(r.error)}\n${r.stderr}`);
  assert.equal(r.status, 0, `python failed:\n${r.stderr}\n${r.stdout}`);
  return r.stdout;
}

/** The Python packages of the ecosystem exports, none of which this machine's package index holds. */
const ECOSYSTEM = {
  verifiers: {
    env: 'VTASK_VERIFIERS_PYTHON',
    module: 'verifiers',
    check: 'import verifiers as vf; vf.SingleTurnEnv; vf.ToolEnv',
    repo: 'PrimeIntellect-ai/verifiers',
  },
  inspect: {
    env: 'VTASK_INSPECT_PYTHON',
    module: 'inspect_ai',
    check: 'import inspect_ai, inspect_ai._cli.main',
    repo: 'UKGovernmentBEIS/inspect_ai',
  },
} as const;

/**
 * The interpreter that has verifiers or Inspect AI (`VTASK_VERIFIERS_PYTHON`,
 * `VTASK_INSPECT_PYTHON`, else python3 when it imports them), or why there is none. Unlike
 * `pythonMissing` it never fails in CI: neither package is in the CI machine's package index, so
 * the tests that need them are skipped there, with the reason listed.
 */
export function ecosystemPython(kind: keyof typeof ECOSYSTEM): { python: string } | { why: string } {
  const e = ECOSYSTEM[kind];
  const python = process.env[e.env] || 'python3';
  const r = spawnSync(python, ['-c', e.check], { encoding: 'utf8', timeout: 120_000 });
  if (r.status === 0) return { python };
  const last = (r.stderr || String(r.error)).trim().split('\n').at(-1);
  return {
    why: `needs: ${e.module}, which is not in this machine's package index: install it from ${e.repo} into a virtualenv (python3 -m venv --system-site-packages DIR; DIR/bin/pip install ...) and set ${e.env}=DIR/bin/python (${python}: ${last})`,
  };
}
