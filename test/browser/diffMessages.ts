// What the Compare Runs page's browser test needs from the core, bundled at test time: the
// protocol's schemas and the comparison itself (diff.ts), which makes the page's fixture.
export { fromDiff, toDiff } from '../../src/core/base/diffProtocol';
export { diffKey, diffRuns } from '../../src/core/overview/runlog/diff';
export { HOSTILE_ID } from '../support/statsFixture';
