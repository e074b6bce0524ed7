// The parts of a composed verifier (`all`, `any`, `weighted`, nested), as the agent probes need
// them: does it check the work (`trajectory`, `state`), does it check the final answer, which
// state values does it expect, and which tools must be called.
import { kindOf } from '../verifiers/verify';
import { isRecord } from '../base/record';

/** The kinds that read the trajectory rather than the final answer. */
const AGENT_KINDS: ReadonlySet<string> = new Set(['trajectory', 'state']);
const COMPOSITES: ReadonlySet<string> = new Set(['all', 'any', 'weighted']);

export interface VerifierLeaf {
  readonly kind: string;
  readonly params: Readonly<Record<string, unknown>>;
}

/** The verifiers that are not composites, depth first, in the order written. */
export function verifierLeaves(verify: unknown): VerifierLeaf[] {
  const found = kindOf(verify);
  if ('error' in found) return [];
  const { kind, params } = found;
  if (!COMPOSITES.has(kind.kind)) return [{ kind: kind.kind, params }];
  const of: unknown[] = Array.isArray(params.of) ? params.of : [];
  return of.flatMap((item) =>
    verifierLeaves(kind.kind === 'weighted' ? (isRecord(item) ? item.verify : undefined) : item),
  );
}

/** True when some part checks the trajectory or the final state: the work, not only the answer. */
export function checksWork(verify: unknown): boolean {
  return verifierLeaves(verify).some((l) => AGENT_KINDS.has(l.kind));
}

/** True when some part checks the final answer. */
export function checksAnswer(verify: unknown): boolean {
  return verifierLeaves(verify).some((l) => !AGENT_KINDS.has(l.kind));
}

/** The `state` parts that expect one scalar value (`equals: Lisbon`) at a path. */
export function expectedStates(verify: unknown): { path: string; value: string | number | boolean }[] {
  return verifierLeaves(verify).flatMap((l) => {
    const { path, equals } = l.params;
    if (l.kind !== 'state' || typeof path !== 'string') return [];
    return typeof equals === 'string' || typeof equals === 'number' || typeof equals === 'boolean'
      ? [{ path, value: equals }]
      : [];
  });
}

/** The tools a `trajectory` part requires (`called`, `order`), first mention first. */
export function requiredTools(verify: unknown): string[] {
  const names = verifierLeaves(verify)
    .filter((l) => l.kind === 'trajectory')
    .flatMap((l) =>
      [l.params.called, l.params.order].flatMap((v) =>
        Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [],
      ),
    );
  return [...new Set(names)];
}
