import { fsReason, MissingPathError } from '../core/taskfile/discover';
import { closest } from '../core/base/suggest';
import { cut } from '../core/util/cut';
import { version } from '../core/version';
import { check, checkHelp } from './checkCommand';
import { test, testHelp } from './testCommand';
import { exportCommand, exportHelp } from './exportCommand';
import { importCommand, importHelp } from './importCommand';
import { run, runHelp } from './runCommand';
import { serveCommand, serveHelp } from './serveCommand';
import { auditCommand, auditHelp } from './auditCommand';
import { statsCommand, statsHelp } from './statsCommand';
import { envCommand, envHelp } from './envCommand';
import { EXIT, UsageError, type CliIO } from './io';
import { onSandboxUse, setAllowWeakIsolation } from '../core/sandbox';

const ALLOW_WEAK_FLAG = '--allow-weak-isolation';

const help = `vtask ${version}: write, check and run verifiable tasks for RLVR

Usage: vtask <command> [options] PATH...

Commands:
  check PATH...   validate task files; prints file:line:col: error: message
  test PATH...    run every task's cases (no model); last line "N passed, N failed"
  run PATH...     sample a model N times per task, verify, print pass rate, pass@k, band
  export PATH...  write a training dataset (open-instruct, verl, trl, openai-rft)
  import IN       read a dataset back into a task file
  serve PATH...   answer verdicts over HTTP for trainers
  audit PATH...   probe each verifier for answers it wrongly passes or fails (no model)
  stats PATH...   what is in a dataset: counts, cases, per-model results, duplicates, overlap
  env RUN         an agent environment in the sandbox, speaking its protocol on stdin/stdout

Options:
  --allow-weak-isolation  (test, run, audit, env) let code and script verifiers run without the full
                  sandbox (bubblewrap); without it they are refused there. See README, Isolation.
  -h, --help      show help (also: vtask help <command>, vtask <command> --help)
  -v, --version   print the version

Exit codes: 0 success, 1 a check failed, 2 usage error.`;

interface Command {
  readonly help: string;
  run(args: readonly string[], io: CliIO, signal: AbortSignal): number | Promise<number>;
}

/** The command table: name → what it does. */
const COMMANDS: Readonly<Record<string, Command>> = {
  check: { help: checkHelp, run: (args, io) => check(args, io) },
  test: { help: testHelp, run: (args, io) => test(args, io) },
  run: { help: runHelp, run: (args, io, signal) => run(args, io, signal) },
  export: { help: exportHelp, run: (args, io) => exportCommand(args, io) },
  import: { help: importHelp, run: (args, io) => importCommand(args, io) },
  serve: { help: serveHelp, run: (args, io, signal) => serveCommand(args, io, signal) },
  audit: { help: auditHelp, run: (args, io, signal) => auditCommand(args, io, signal) },
  stats: { help: statsHelp, run: (args, io, signal) => statsCommand(args, io, signal) },
  env: { help: envHelp, run: (args, io, signal) => envCommand(args, io, signal) },
};

/**
 * A usage error is the one line that says what is wrong and where the usage is: the whole help
 * would bury that line under the options.
 */
function usageError(io: CliIO, message: string, command?: string): number {
  io.stderr.write(`${message}\nrun 'vtask help${command ? ` ${command}` : ''}' for usage\n`);
  return EXIT.usage;
}

function unknownCommand(io: CliIO, name: string): number {
  const near = closest(name, Object.keys(COMMANDS));
  return usageError(io, `vtask: unknown command '${cut(name)}'${near ? ` (did you mean '${near}'?)` : ''}`);
}

/** Runs the CLI on argv (without `node` and the script) and returns the exit code. */
export async function runCli(argv: readonly string[], io: CliIO, signal: AbortSignal = new AbortController().signal): Promise<number> {
  const [name, ...rest] = argv;
  if (name === 'help' && rest[0] !== undefined) {
    // `vtask help <command>`: the command's own help, as `vtask <command> --help` prints it.
    const topic = COMMANDS[rest[0]];
    if (!topic) return unknownCommand(io, rest[0]);
    io.stdout.write(topic.help + '\n');
    return EXIT.ok;
  }
  if (name === undefined || name === '-h' || name === '--help' || name === 'help') {
    io.stdout.write(help + '\n');
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  if (name === '-v' || name === '--version') {
    io.stdout.write(version + '\n');
    return EXIT.ok;
  }
  const command = COMMANDS[name];
  if (!command) return unknownCommand(io, name);
  if (rest.includes('-h') || rest.includes('--help')) {
    io.stdout.write(command.help + '\n');
    return EXIT.ok;
  }
  const allowWeak = rest.includes(ALLOW_WEAK_FLAG);
  setAllowWeakIsolation(allowWeak);
  // Said once per run, when the first code or script check takes the sandbox.
  let told = false;
  const stopTelling = onSandboxUse((sb) => {
    if (!told) io.stderr.write(`vtask: ${sb.notice()}\n`);
    told = true;
  });
  try {
    return await command.run(
      rest.filter((a) => a !== ALLOW_WEAK_FLAG),
      io,
      signal,
    );
  } catch (e) {
    if (e instanceof UsageError || e instanceof MissingPathError) {
      return usageError(io, `vtask ${name}: ${e.message}`, name);
    }
    // Anything else still ends in one line, not a stack trace (VTASK_DEBUG=1 shows the stack).
    const err = e as NodeJS.ErrnoException;
    const what = err.code && err.syscall ? `${err.path ? `${err.path}: ` : ''}${fsReason(err)}` : String(err?.message ?? e);
    io.stderr.write(`vtask ${name}: error: ${what}\n`);
    if (process.env.VTASK_DEBUG) io.stderr.write(`${err?.stack ?? ''}\n`);
    return EXIT.failed;
  } finally {
    stopTelling();
    setAllowWeakIsolation(false);
  }
}
