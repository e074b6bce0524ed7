// `vtask serve` cannot be driven by a web page, in real Chromium. A page on another local origin
// tries what any site could: a `no-cors` text/plain fetch, a JSON fetch (which needs a CORS
// preflight), and a text/plain form POST whose body is JSON; and a name rebound to 127.0.0.1
// (DNS rebinding, simulated with Chromium's host resolver rules) makes same-origin requests.
// The server is the most permissive one (`--allow-inline-programs`), serving a script that
// notes each run in a file: afterwards the file holds only the runs a plain client asked for.
//
//   node scripts/build.mjs && node --test test/browser/serveOrigin.test.mjs
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromiumPath, launchBrowser, REPO } from './panelPage.mjs';

const REBOUND = 'rebind.test';

let dir;
let ran;
let serve;
let serveUrl;
let attacker;
let pageUrl;
let browser;

/** `vtask serve ARGS --port 0` in `cwd`; resolves with the child and its URL. */
function startServe(args, cwd, env) {
  const child = spawn(process.execPath, [path.join(REPO, 'out/cli.js'), 'serve', ...args, '--port', '0'], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /^listening on (http:\/\/\S+)\n/.exec(out);
      if (m) resolve({ child, url: m[1] });
    });
    child.once('exit', (code) => reject(new Error(`vtask serve exited with ${code}: ${err}`)));
  });
}

/** A POST as a trainer sends it (JSON, no Origin): the control that the marker does work. */
function post(body) {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${serveUrl}/verify`,
      { method: 'POST', headers: { 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode, json: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

/** The attacking page: every request it makes, then `window.__done`. */
function attackPage(target) {
  const inline = (label) =>
    JSON.stringify({ verifier: { script: { path: 'mark.sh', args: [label] } }, responses: ['x'] });
  // A text/plain form sends `name=value`: the name opens a JSON object and the value closes it.
  const formName = inline('form').slice(0, -1) + ',"pad":"';
  return `<!doctype html><meta charset="utf-8"><title>another site</title>
<iframe name="sink"></iframe>
<form id="f" method="POST" action="${target}/verify" enctype="text/plain" target="sink"><input type="hidden" name='${formName}' value='"}'></form>
<script>
window.__errors = [];
window.__done = (async () => {
  const target = ${JSON.stringify(target)};
  await fetch(target + '/verify', { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body: ${JSON.stringify(inline('no-cors-inline'))} }).catch((e) => __errors.push('no-cors: ' + e));
  await fetch(target + '/verify', { method: 'POST', mode: 'no-cors', body: JSON.stringify({ task: 'marked', responses: ['x'] }) }).catch((e) => __errors.push('no-cors task: ' + e));
  await fetch(target + '/verify', { method: 'POST', headers: { 'content-type': 'application/json' }, body: ${JSON.stringify(inline('cors-json'))} }).then(() => __errors.push('cors: answered'), () => __errors.push('cors: refused'));
  await new Promise((resolve) => {
    document.querySelector('iframe').addEventListener('load', resolve, { once: true });
    document.getElementById('f').submit();
  });
  return 'done';
})();
</script>`;
}

describe(
  'vtask serve and web pages in Chromium',
  { skip: chromiumPath() ? false : 'Chromium not found (set VTASK_CHROMIUM)' },
  () => {
    before(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-serve-origin-'));
      // Scripts run as an unprivileged user of their own under root: the folder readable, the marks writable.
      fs.chmodSync(dir, 0o755);
      ran = path.join(dir, 'ran');
      fs.writeFileSync(ran, '');
      fs.chmodSync(ran, 0o666);
      fs.writeFileSync(path.join(dir, 'package.json'), '{}\n');
      fs.writeFileSync(
        path.join(dir, 'mark.sh'),
        `#!/bin/sh\necho "$1" >> ${ran}\nprintf '{"pass": true, "reason": "ran %s"}\\n' "$1"\n`,
        { mode: 0o755 },
      );
      fs.writeFileSync(
        path.join(dir, 'tasks.vtask'),
        'vtask: 1\ntasks:\n  - id: marked\n    prompt: "Say hi"\n    verify: { script: { path: ./mark.sh, args: [by-task] } }\n',
      );
      // The process sandbox writes to the real file system (the full one would keep the marks in).
      ({ child: serve, url: serveUrl } = await startServe(['.', '--allow-inline-programs'], dir, {
        VTASK_SANDBOX: 'process',
        VTASK_ALLOW_WEAK_ISOLATION: '1',
        VTASK_SERVE_TOKEN: '',
      }));
      attacker = http.createServer((req, res) => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(attackPage(serveUrl));
      });
      await new Promise((resolve) => attacker.listen(0, '127.0.0.1', resolve));
      pageUrl = `http://127.0.0.1:${attacker.address().port}/`;
      browser = await launchBrowser([`--host-resolver-rules=MAP ${REBOUND} 127.0.0.1`]);
    });
    after(async () => {
      await browser?.close();
      serve?.kill('SIGTERM');
      attacker?.close();
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    });

    test('a page on another origin gets 403 for a no-cors fetch and a form POST; its JSON fetch fails its preflight; nothing runs', async () => {
      const context = await browser.newContext();
      const page = await context.newPage();
      const answers = [];
      page.on('response', (r) => r.url().startsWith(serveUrl) && answers.push([r.request().method(), r.status()]));
      try {
        await page.goto(pageUrl);
        assert.equal(await page.evaluate(() => window.__done), 'done');
        assert.deepEqual(await page.evaluate(() => window.__errors), ['cors: refused']);
        // The server answered each request the page got through with a refusal.
        const posts = answers.filter(([method]) => method === 'POST');
        assert.ok(posts.length >= 3, JSON.stringify(answers));
        assert.deepEqual(
          answers.filter(([, status]) => status !== 403),
          [],
          JSON.stringify(answers),
        );
        // The form's answer, shown in its frame, says why.
        const frameText = await page.frame({ name: 'sink' }).locator('body').innerText();
        assert.match(frameText, /requests from web pages are refused \(Origin: http:\/\/127\.0\.0\.1:\d+\)/);
      } finally {
        await context.close();
      }
      assert.equal(fs.readFileSync(ran, 'utf8'), '', 'no request of the page ran the script');
    });

    test('a name rebound to 127.0.0.1 gets 403 for navigations and same-origin requests; nothing runs', async () => {
      const context = await browser.newContext();
      const page = await context.newPage();
      const port = new URL(serveUrl).port;
      try {
        const res = await page.goto(`http://${REBOUND}:${port}/health`);
        assert.equal(res.status(), 403);
        assert.match(
          await page.locator('body').innerText(),
          new RegExp(`the Host header '${REBOUND}:${port}' is not a name of this server`),
        );
        const sameOrigin = await page.evaluate(async () => {
          const get = await fetch('/health');
          const body = JSON.stringify({
            verifier: { script: { path: 'mark.sh', args: ['rebound'] } },
            responses: ['x'],
          });
          const postJson = await fetch('/verify', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body,
          });
          return [get.status, postJson.status, (await postJson.json()).error];
        });
        assert.deepEqual(sameOrigin.slice(0, 2), [403, 403]);
        assert.match(sameOrigin[2], /the Host header/);
      } finally {
        await context.close();
      }
      assert.equal(fs.readFileSync(ran, 'utf8'), '', 'no request of the page ran the script');
    });

    test('the same requests from a trainer (JSON, no Origin) do run: the marks are real', async () => {
      const byTask = await post({ task: 'marked', responses: ['x'] });
      assert.equal(byTask.status, 200, JSON.stringify(byTask.json));
      const inline = await post({
        verifier: { script: { path: 'mark.sh', args: ['trainer-inline'] } },
        responses: ['x'],
      });
      assert.equal(inline.status, 200, JSON.stringify(inline.json));
      assert.equal(fs.readFileSync(ran, 'utf8'), 'by-task\ntrainer-inline\n');
    });
  },
);
