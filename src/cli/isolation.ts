import { isolationOf } from '../core/verifiers/code/isolation';
import type { Verdict } from '../core/verifiers/verdict';

/** `{isolation: {method, level, lost, limits}}` for a `--json` result whose verdict ran code, else nothing. */
export function isolationField(v: Verdict): { isolation?: unknown } {
  const iso = isolationOf(v);
  return iso ? { isolation: iso } : {};
}
