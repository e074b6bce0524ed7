/*
 * The one map from instruction id to its check. Every id in the registry (instructions.ts) has
 * an entry: the ones that need a model or a heavy NLP library answer `error: 'unavailable'`.
 */
import { IFBENCH_CHECKS } from './checks/ifbench';
import { IFEVAL_CHECKS } from './checks/ifeval';
import { OPEN_INSTRUCT_CHECKS } from './checks/openInstruct';
import { VTASK_CHECKS } from './checks/vtask';
import type { InstructionCheck } from './types';

export const CHECKERS: ReadonlyMap<string, InstructionCheck> = new Map<string, InstructionCheck>(
  Object.entries({ ...IFEVAL_CHECKS, ...IFBENCH_CHECKS, ...OPEN_INSTRUCT_CHECKS, ...VTASK_CHECKS }),
);

/** Ids whose check cannot run here, with why. */
export const UNAVAILABLE: ReadonlyMap<string, string> = new Map([
  ['words:start_verb', 'needs part-of-speech tagging (IFBench uses nltk.pos_tag, an averaged-perceptron model)'],
]);
