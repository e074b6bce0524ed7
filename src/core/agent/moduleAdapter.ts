import path from 'node:path';

/**
 * The program that runs a JS-module environment in the sandbox: it imports the module and
 * speaks the same line protocol as an executable, so both kinds are one isolated process.
 * The module exports `reset(args)`, `call(tool, args)` and `state()`, sync or async (or an
 * object with them as its default export). `reset` returns `{tools}` (or the list itself);
 * `call` returns the tool's result, or `{result}`/`{error}` as the protocol has them, and a
 * thrown error becomes `{"error": message}`. `console.log` goes to stderr: stdout carries only
 * replies.
 */
export function moduleAdapter(file: string): string {
  const name = JSON.stringify(path.basename(file));
  return `import readline from 'node:readline';
import { pathToFileURL } from 'node:url';
const out = process.stdout.write.bind(process.stdout);
for (const k of ['log', 'info', 'debug', 'warn', 'dir', 'table', 'trace']) console[k] = console.error.bind(console);
process.stdout.write = (chunk, ...rest) => process.stderr.write(chunk, ...rest);
const mod = await import(pathToFileURL(${JSON.stringify(file)}).href);
const api = ['reset', 'call', 'state'].every((f) => typeof mod[f] === 'function') ? mod : mod.default && typeof mod.default === 'object' ? mod.default : mod;
for (const f of ['reset', 'call', 'state']) {
  if (typeof api[f] !== 'function') {
    process.stderr.write('Error: ' + ${name} + ' does not export a function ' + f + '()\\n');
    process.exit(3);
  }
}
const reply = (v) => new Promise((resolve) => out(JSON.stringify(v === undefined ? null : v) + '\\n', resolve));
const message = (e) => (e && typeof e.message === 'string' ? e.message : String(e));
const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (!line.trim()) continue;
  const m = JSON.parse(line);
  if (m.op === 'reset') {
    const r = await api.reset(m.args ?? {});
    await reply(Array.isArray(r) ? { tools: r } : r);
  } else if (m.op === 'call') {
    let r;
    try {
      r = await api.call(m.tool, m.args ?? {});
    } catch (e) {
      await reply({ error: message(e) });
      continue;
    }
    const keys = r && typeof r === 'object' && !Array.isArray(r) ? Object.keys(r) : [];
    const framed = keys.length === 1 && (keys[0] === 'result' || (keys[0] === 'error' && typeof r.error === 'string'));
    try {
      await reply(framed ? r : { result: r === undefined ? null : r });
    } catch (e) {
      await reply({ error: 'the result is not JSON: ' + message(e) });
    }
  } else if (m.op === 'state') {
    await reply(await api.state());
  } else {
    await reply({ error: 'unknown request ' + JSON.stringify(m.op) });
  }
}
`;
}
