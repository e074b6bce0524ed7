// What the samples view's browser test needs from the core, bundled at test time: the workbench's
// worker client, the real CLI (to sample a task file from the local OpenAI-compatible server),
// the server, the case-adding edit and the protocol's validators.
export { rowMessage, WorkbenchClient } from '../../src/core/workbench/client';
export { addCasesToText } from '../../src/core/workbench/samples';
export { fromWorkbench, toWorkbench } from '../../src/core/base/workbenchProtocol';
export { OpenAIServer } from '../support/openaiServer';
export { runCliProcess } from '../support/cliProcess';
