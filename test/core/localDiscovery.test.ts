// Local-server discovery (the model used when nothing is configured) against a real server on
// 127.0.0.1, and the switch that turns it off: `VTASK_NO_LOCAL_DISCOVERY=1` means no probe at all.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { findLocalModels } from '../../src/core/sampling/localModels';
import { startOpenAIServer } from '../support/openaiServer';

void test('a local server is found by its /v1/models, and VTASK_NO_LOCAL_DISCOVERY=1 turns the probe off', async (t) => {
  const server = await startOpenAIServer({ models: ['local-a'] });
  t.after(() => server.close());
  const servers = [{ name: 'here', baseUrl: server.url }];
  const saved = process.env.VTASK_NO_LOCAL_DISCOVERY;
  t.after(() => {
    if (saved === undefined) delete process.env.VTASK_NO_LOCAL_DISCOVERY;
    else process.env.VTASK_NO_LOCAL_DISCOVERY = saved;
  });

  delete process.env.VTASK_NO_LOCAL_DISCOVERY;
  const found = await findLocalModels(2000, servers);
  assert.deepEqual(
    found.map((p) => [p.name, p.baseUrl, p.model]),
    [['here:local-a', server.url, 'local-a']],
  );

  process.env.VTASK_NO_LOCAL_DISCOVERY = '1';
  const before = server.requests.length;
  assert.deepEqual(await findLocalModels(2000, servers), []);
  assert.equal(server.requests.length, before, 'the switch sends no request at all');
});
