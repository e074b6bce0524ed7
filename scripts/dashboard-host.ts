// What scripts/bench-dashboard.mjs runs of the extension host's dashboard, bundled once: the
// live statistics, the run log as the extension reads it, the view and comparison the page gets,
// and the duplicate search of the duplicate diagnostics (in the overview's worker thread).
export { LiveDatasetStats } from '../src/core/overview/dataset/liveStats';
export { readRunLogIndex } from '../src/core/overview/runlog/runLogIndex';
export { appendRunRecords, runLogPath } from '../src/core/overview/runlog/runLog';
export { TimeSlices } from '../src/core/util/slices';
export { relativise } from '../src/core/overview/dataset/dashboardView';
export { ComparisonPages } from '../src/core/overview/dataset/dashboardCompare';
export { findFindingsInThread } from '../src/core/overview/prompts/findings';
export { parseTaskFile } from '../src/core/taskfile/parse';
export { runnableTasks } from '../src/core/taskfile/resolve';
export { taskRunKey } from '../src/core/run/resultKeys';
