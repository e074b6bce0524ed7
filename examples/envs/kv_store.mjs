// A key-value store with `get`, `set` and `list` tools, as a JS module environment for
// examples/agent-kv.vtask. vtask runs it in the sandbox, one fresh instance per sample.
// The state counts lookups (`get` calls), so a verifier can tell an agent that looked a
// value up from one that guessed.

const CAPITALS = { fr: 'Paris', de: 'Berlin', it: 'Rome', es: 'Madrid' };

let store = {};
let lookups = 0;

const TOOLS = [
  {
    name: 'get',
    description: 'Read the value stored under a key.',
    parameters: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'], additionalProperties: false },
  },
  {
    name: 'set',
    description: 'Store a value under a key.',
    parameters: { type: 'object', properties: { key: { type: 'string' }, value: { type: 'string' } }, required: ['key', 'value'], additionalProperties: false },
  },
  {
    name: 'list',
    description: 'List the stored keys.',
    parameters: { type: 'object', properties: {}, additionalProperties: false },
  },
];

/** `args.data` replaces the initial contents (country codes and their capitals). */
export function reset(args) {
  store = { ...(args.data ?? CAPITALS) };
  lookups = 0;
  return { tools: TOOLS };
}

export function call(tool, args) {
  switch (tool) {
    case 'get':
      lookups++;
      if (!(args.key in store)) throw new Error(`no value under ${JSON.stringify(args.key)}`);
      return store[args.key];
    case 'set':
      store[args.key] = args.value;
      return 'ok';
    case 'list':
      return Object.keys(store).sort();
    default:
      throw new Error(`unknown tool ${tool}`);
  }
}

export function state() {
  return { store, lookups };
}
