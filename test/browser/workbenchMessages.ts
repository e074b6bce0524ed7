// What the workbench's browser test and benchmarks need from the core, bundled at test time: the
// worker client and index over real files written by the exporter, and the old table for a baseline.
export { rowMessage, WorkbenchClient } from '../../src/core/workbench/client';
export { WorkbenchIndex } from '../../src/core/workbench/index';
export { collectWorkbench } from '../../src/core/workbench/collect';
export { parseQuery } from '../../src/core/workbench/query';
export { DatasetTable } from '../../src/core/datasets/datasetView';
export { HOSTILE_PROMPT, rowTaskId, writeDataset } from '../support/datasetFixture';
export { fromWorkbench, toWorkbench } from '../../src/core/base/workbenchProtocol';
export { auditSelection, packSelection, selectionFiles, unpackSelection } from '../../src/core/workbench/bulk';
export { startBulkJob } from '../../src/core/workbench/bulkJob';
export { RowSet } from '../../src/core/base/rowSet';
export { estimateRun, estimateText } from '../../src/core/workbench/estimate';
export { exportFiles } from '../../src/core/datasets/exportFiles';
export { TimeSlices } from '../../src/core/util/slices';
