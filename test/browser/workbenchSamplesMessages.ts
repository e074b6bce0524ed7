// What the samples view's browser test needs from the core, bundled at test time: the workbench's
// worker client, the real CLI (to sample a task file from the local OpenAI-compatible server),
// the server, the case-adding edit and the protocol's validators.
export { rowMessage, WorkbenchClient } from '../../src/core/workbench/client';
export { addCasesToText, casesEdits } from '../../src/core/workbench/samples';
export { fromWorkbench, toWorkbench } from '../../src/core/base/workbenchProtocol';
export { OpenAIServer } from '../support/openaiServer';
export { runCliProcess } from '../support/cliProcess';
// And for scripts/bench-workbench-samples.mjs: samples written to a cache as a run writes them,
// and the editor's in-thread way of verifying cached samples (its restore on opening a file).
export { SampleCache, sampleKey } from '../../src/core/sampling/cache';
export { requestOf, sampleTasks } from '../../src/core/run/sampleTasks';
export { editorProfile } from '../../src/core/run/editorProfile';
export { parseTaskFile } from '../../src/core/taskfile/parse';
export { runnableTasks } from '../../src/core/taskfile/resolve';
