// What the dashboard's browser test needs from the core, bundled at test time: the protocol's
// schemas, the comparison pages the host answers with, and the made-up statistics of a dataset
// of any size.
export { fromDashboard, toDashboard } from '../../src/core/base/dashboardProtocol';
export { fileName, HOSTILE_ID, HOSTILE_OVERLAP, makeStats, taskId } from '../support/statsFixture';
export { ComparisonPages } from '../../src/core/overview/dataset/dashboardCompare';
