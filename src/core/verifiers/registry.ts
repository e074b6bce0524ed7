import { agentKinds } from './agentKinds';
import { choiceKind } from './choice';
import { codeKind } from './code';
import { allKind, anyKind, weightedKind } from './composite';
import { constraintsKind } from './constraints';
import { formatKind } from './format';
import { jsonKind } from './json';
import type { VerifierKind } from './kind';
export { COMMON_VERIFIER_FIELDS } from './kind';
import { judgeKind } from './judge';
import { matchKind } from './match';
import { mathKind } from './math';
import { scriptKind } from './script';

/** Every verifier kind, by name. Adding a kind means adding its module and one entry here. */
export const VERIFIERS: ReadonlyMap<string, VerifierKind> = new Map(
  [
    mathKind,
    matchKind,
    choiceKind,
    constraintsKind,
    jsonKind,
    codeKind,
    scriptKind,
    judgeKind,
    formatKind,
    allKind,
    anyKind,
    weightedKind,
    ...agentKinds,
  ].map((k) => [k.kind, k]),
);
