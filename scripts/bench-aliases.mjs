// CPU time to parse a task file of a fixed size (about 500 KB, 1,000 tasks) as the number of
// aliases to a shared anchor in `defaults` grows: the cost must stay linear in the file, not
// grow with aliases times file size. Prints one JSON line per alias count.
import { loadBundled } from './bundle.mjs';

const { parseTaskFile } = await loadBundled('src/core/taskfile/parse.ts');

const TASKS = 1000;
// Many small values per task, as cases and metadata make them: the YAML node count is what costs.
const CASES = Array.from({ length: 12 }, (_, k) => `      - { response: "${k}", expect: fail }`);

function file(aliases) {
  const lines = ['vtask: 1', 'defaults:', '  verify: &shared { match: { answer: "42" } }', 'tasks:'];
  for (let i = 0; i < TASKS; i++) {
    lines.push(`  - id: t${i}`, `    prompt: "What is six times seven? (${i})"`);
    lines.push(i < aliases ? '    verify: *shared' : '    verify: { match: { answer: "42" } }');
    lines.push('    cases:', ...CASES);
  }
  return lines.join('\n') + '\n';
}

for (const aliases of [0, 10, 100, 200, 1000]) {
  const text = file(aliases);
  const t0 = process.cpuUsage();
  const parsed = parseTaskFile(text);
  const cpu = process.cpuUsage(t0);
  const errors = parsed.issues.filter((i) => i.severity === 'error').length;
  console.log(
    JSON.stringify({
      bench: 'aliases',
      bytes: text.length,
      tasks: parsed.tasks.length,
      aliases,
      errors,
      cpu_ms: Math.round((cpu.user + cpu.system) / 1000),
    }),
  );
}
