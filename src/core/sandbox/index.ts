/**
 * Running untrusted programs: one process per run, in a fresh temporary folder, with a time
 * limit, a memory limit, no network and a read-only file system where the platform allows
 * (bubblewrap, then `unshare`, then a plain process with rlimits). Every result says how the
 * program was isolated.
 */
export type { MemoryPolicy, Sandbox, SandboxRunOptions, SandboxRunResult, SandboxStreams } from './types';
export { detectSandbox, getSandbox, onSandboxUse, type DetectedSandbox } from './detect';
export { ALLOW_WEAK_ENV, setAllowWeakIsolation, weakIsolationAllowed } from './policy';
export { findInterpreter, nodeMemoryArgs, type Interpreter } from './interpreters';
export type { Method } from './backends';
export { disposeSandboxPools } from './pool';
export { projectRoot, readableFolders, setProjectRoots } from './projectRoot';
