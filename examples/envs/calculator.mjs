// A calculator with `add`, `sub` and `mul` tools, as a JS module environment for
// examples/agent-calculator.vtask. vtask runs it in the sandbox, one fresh instance per sample.
// The state counts the calls (in all and per tool), so a verifier can tell an agent that used
// the calculator from one that answered from memory.

const number = { type: 'integer' };
const operands = { type: 'object', properties: { a: number, b: number }, required: ['a', 'b'], additionalProperties: false };

const TOOLS = [
  { name: 'add', description: 'a + b', parameters: operands },
  { name: 'sub', description: 'a - b', parameters: operands },
  { name: 'mul', description: 'a * b', parameters: operands },
];

const OPERATIONS = { add: (a, b) => a + b, sub: (a, b) => a - b, mul: (a, b) => a * b };

let calls = 0;
let byTool = {};

/** `args.tools` offers only some of the tools (e.g. `[add]`), to see what the model does without the others. */
export function reset(args) {
  calls = 0;
  byTool = {};
  const offered = Array.isArray(args.tools) ? TOOLS.filter((t) => args.tools.includes(t.name)) : TOOLS;
  return { tools: offered };
}

export function call(tool, args) {
  calls++;
  byTool[tool] = (byTool[tool] ?? 0) + 1;
  const op = OPERATIONS[tool];
  if (!op) throw new Error(`unknown tool ${tool}`);
  for (const k of ['a', 'b']) {
    if (!Number.isInteger(args[k])) throw new Error(`${k} must be an integer, got ${JSON.stringify(args[k])}`);
  }
  return op(args.a, args.b);
}

export function state() {
  return { calls, byTool };
}
