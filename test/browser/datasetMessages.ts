// What the dataset view's browser test needs from the core, bundled at test time: the table
// over a real Parquet file written by the exporter, and the protocol's schemas.
export { DatasetTable } from '../../src/core/datasets/datasetView';
export { fromDataset, toDataset } from '../../src/core/base/datasetProtocol';
export { HOSTILE_PROMPT, rowTaskId, writeDataset } from '../support/datasetFixture';
