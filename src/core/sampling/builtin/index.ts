// The built-in DEMO models: tiny character-level Llama models that do two-number arithmetic (or
// call calculator tools for it), run in process by a pure TypeScript GGUF engine (no native code, no downloads).
export {
  BuiltinProvider,
  BUILTIN_MODELS,
  BUILTIN_TOOL_MODEL,
  DEFAULT_BUILTIN_MAX_TOKENS,
  DEFAULT_BUILTIN_MODEL,
  DEFAULT_BUILTIN_TOOL_MAX_TOKENS,
  resolveBuiltinModelFile,
  setBuiltinModelDir,
  type BuiltinProviderOptions,
} from './provider';
export {
  clearModelCache,
  generate,
  loadModel,
  prefill,
  type GenerateOptions,
  type Generation,
  type Prefill,
} from './engine';
export { parseGguf, halfToFloat, GgufError, type GgufFile, type GgufTensor, type GgufValue } from './gguf';
export { LlamaModel, KvCache, type ModelConfig } from './model';
export { CharTokenizer } from './tokenizer';
export { Rng, argmax, pickToken } from './sample';
export { DEMO_NOTE, demoNote, extractQuestion, promptFor } from './prompt';
export { callId, parseCall, renderToolResult, toolPromptFor } from './toolPrompt';
