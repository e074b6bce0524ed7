#!/usr/bin/env node
// The test OpenAI-compatible server as a process of its own, for tests that cannot import it
// (the VS Code extension host, a shell): bundles test/support/openaiServer.ts into
// out/test/support/openaiServer.js (esbuild, a few ms) and starts it with the arguments given.
//
//   node scripts/test-server.mjs --port 0 [--models a,b] [--api-key K] [--delay-ms N] [--no-record]
//   node scripts/test-server.mjs --build-only
//
// Agent tasks: a line `vtask-test-script: [{"calls": [{"get": {"key": "fr"}}]}, {"answer": "Paris"}]`
// in the prompt scripts the tool calls of each turn (see test/support/openaiServer.ts).
//
// It prints `listening <port>` once it accepts connections; script it over HTTP with
// `POST /_control/script {"replies": [...]}`, `GET /_control/state`, `POST /_control/reset`.
// After a build, `node out/test/support/openaiServer.js --port 0` does the same.
import * as esbuild from 'esbuild';
import { createRequire } from 'node:module';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const outfile = path.join(root, 'out/test/support/openaiServer.js');
await esbuild.build({
  absWorkingDir: root,
  entryPoints: ['test/support/openaiServer.ts'],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  logLevel: 'warning',
});
if (!process.argv.includes('--build-only')) {
  const { main } = createRequire(import.meta.url)(outfile);
  await main(process.argv.slice(2));
}
