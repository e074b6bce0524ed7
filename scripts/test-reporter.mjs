// A node:test reporter for scripts/test-all.mjs: one JSON line per skipped test, with its file
// and reason, so that the runner can print every skip and hold CI to the skip policy.
//   node --test --test-reporter=./scripts/test-reporter.mjs --test-reporter-destination=FILE ...
export default async function* skips(source) {
  for await (const event of source) {
    if (event.type !== 'test:pass' || event.data.skip === undefined || event.data.skip === false) continue;
    const { file, name, skip } = event.data;
    yield JSON.stringify({ file: file ?? '', name, reason: typeof skip === 'string' ? skip : '' }) + '\n';
  }
}
