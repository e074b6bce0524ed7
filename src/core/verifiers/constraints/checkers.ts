/*
 * The one map from instruction id to its check. Every id in the registry (instructions.ts) has
 * an entry; one that needed a model or a heavy NLP library would answer `error: 'unavailable'`.
 */
import { IFBENCH_CHECKS } from './checks/ifbench';
import { IFEVAL_CHECKS } from './checks/ifeval';
import { OPEN_INSTRUCT_CHECKS } from './checks/openInstruct';
import { VTASK_CHECKS } from './checks/vtask';
import type { InstructionCheck } from './types';

export const CHECKERS: ReadonlyMap<string, InstructionCheck> = new Map<string, InstructionCheck>(
  Object.entries({ ...IFEVAL_CHECKS, ...IFBENCH_CHECKS, ...OPEN_INSTRUCT_CHECKS, ...VTASK_CHECKS }),
);

/** Ids whose check cannot run here, with why: none today (a check that needs a model would be listed). */
export const UNAVAILABLE: ReadonlyMap<string, string> = new Map<string, string>();
