import { MissingPathError } from '../core/taskfile/discover';
import { version } from '../core/version';
import { check, checkHelp } from './checkCommand';
import { test, testHelp } from './testCommand';
import { run, runHelp } from './runCommand';
import { EXIT, UsageError, type CliIO } from './io';

const help = `vtask ${version}: write, check and run verifiable tasks for RLVR

Usage: vtask <command> [options] PATH...

Commands:
  check PATH...   validate task files; prints file:line:col: error: message
  test PATH...    run every task's cases (no model); last line "N passed, N failed"
  run PATH...     sample a model N times per task, verify, print pass rate, pass@k, band

Options:
  -h, --help      show help (also: vtask <command> --help)
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
};

/** Runs the CLI on argv (without `node` and the script) and returns the exit code. */
export async function runCli(argv: readonly string[], io: CliIO, signal: AbortSignal = new AbortController().signal): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '-h' || name === '--help' || name === 'help') {
    io.stdout.write(help + '\n');
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  if (name === '-v' || name === '--version') {
    io.stdout.write(version + '\n');
    return EXIT.ok;
  }
  const command = COMMANDS[name];
  if (!command) {
    io.stderr.write(`vtask: unknown command '${name}'\n\n${help}\n`);
    return EXIT.usage;
  }
  if (rest.includes('-h') || rest.includes('--help')) {
    io.stdout.write(command.help + '\n');
    return EXIT.ok;
  }
  try {
    return await command.run(rest, io, signal);
  } catch (e) {
    if (e instanceof UsageError || e instanceof MissingPathError) {
      io.stderr.write(`vtask ${name}: ${e.message}\n\n${command.help}\n`);
      return EXIT.usage;
    }
    throw e;
  }
}
