// The public API of the core, bundled as out/core.js for scripts, benchmarks and other tools.
export { parseTaskFile, TaskFileParser, type TaskFile, type TaskEntry } from './taskfile/parse';
export { runnableTasks, type TaskSpec, type CaseSpec } from './taskfile/resolve';
export { formatIssue } from './taskfile/format';
export type { Issue } from './base/issues';
export { verify } from './verifiers/verify';
export type { Verdict } from './verifiers/verdict';
export { VERIFIERS } from './verifiers/registry';
export { INSTRUCTIONS } from './verifiers/constraints/instructions';
export { runCases } from './run/cases';
export { completeAt } from './language/completion';
export { hoverAt } from './language/hover';
export { version } from './version';
export {
  SampleCache,
  verdictStamp,
  type VerdictStamp,
  type SampleCacheOptions,
  type CacheEntry,
  type CacheStats,
} from './sampling/cache';
export { sampleKey, sampleParams, type SampleParams } from './sampling/cacheKey';
export { resolveCacheDir, findWorkspaceRoot, CACHE_DIR_NAME } from './sampling/cacheDir';
export { createProvider, resolveProfile, describeProfile } from './sampling';
export { sampleTasks, type TaskRunResult } from './run/sampleTasks';
export { taskStats, passAtK, type TaskStats, type Band } from './stats';
export { RowTaskParser, MAX_ROW_TASKS, type RowTaskFile } from './datasets/rowTasks';
export { startEnvironment, EnvironmentError, type StartedEnvironment } from './agent/environment';
export { replayCalls } from './agent/replay';
export { validateToolArgs } from './agent/toolArgs';
export {
  appendRunRecords,
  appendRunRecordsAsync,
  readRunLog,
  readRunRecords,
  runLogKey,
  modelLabel,
  runRecordOf,
  compactRunLog,
  type RunRecord,
  type RunLogEntry,
} from './overview/runlog/runLog';
export { tokensOf, costOf, type Tokens } from './overview/runlog/usage';
export { diffRuns, parseSelection, selectRuns, type DatasetDiff } from './overview/runlog/diff';
export { taskRunKey, taskCasesKey } from './run/resultKeys';
