import { errnoOf, parseJson, recordOr } from '../core/base/record';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type * as z from 'zod';
import { errorMessage } from '../core/base/errorMessage';
import { fsReason, MissingPathError } from '../core/taskfile/discover';
import { closest } from '../core/base/suggest';
import { cut } from '../core/util/cut';
import { version } from '../core/version';
import { check, checkHelp, checkOptions } from './checkCommand';
import { test, testHelp, testOptions } from './testCommand';
import { exportCommand, exportHelp, exportOptions } from './exportCommand';
import { importCommand, importHelp, importOptions } from './importCommand';
import { run, runHelp, runOptions } from './runCommand';
import { serveCommand, serveHelp, serveOptions } from './serveCommand';
import { auditCommand, auditHelp, auditOptions } from './auditCommand';
import { statsCommand, statsHelp, statsOptions } from './statsCommand';
import { diffCommand, diffHelp, diffOptions } from './diffCommand';
import { envCommand, envHelp, envOptions } from './envCommand';
import { EXIT, UsageError, type CliIO } from './io';
import { parseOptions, refuseSpecialPaths, type Parsed } from './options';
import { terminalSafe } from './terminal';
import { onSandboxUse, setAllowWeakIsolation, setProjectRoots } from '../core/sandbox';
import { onSecretsWithheld, parseEndpointRule, setSecretTrust, type EndpointRule } from '../core/sampling/trust';

const ALLOW_WEAK_FLAG = '--allow-weak-isolation';
/** Flags every command takes, with a value: what the user allows, outside any task file. */
const TRUST_FLAGS = ['--trust-endpoint', '--allow-key-env', '--root'] as const;

/** What the user allowed on the command line, and the arguments left for the command. */
interface Allowances {
  readonly rules: EndpointRule[];
  readonly roots: string[];
  readonly rest: string[];
}

/**
 * The user's own configuration file, outside any dataset: `$XDG_CONFIG_HOME/vtask/config.json`
 * (default `~/.config/vtask/config.json`), `{"trustedEndpoints": ["URL", "HOST", "VAR@HOST"]}`,
 * the same entries as the flags. A file that cannot be read is said on stderr and ignored.
 */
function configuredRules(io: CliIO): EndpointRule[] {
  const file = path.join(process.env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config'), 'vtask', 'config.json');
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  const rules: EndpointRule[] = [];
  try {
    const entries = recordOr(parseJson(text)).trustedEndpoints ?? [];
    if (!Array.isArray(entries)) throw new Error('`trustedEndpoints` is a list of strings');
    for (const e of entries) rules.push(parseEndpointRule(String(e)));
  } catch (e) {
    io.stderr.write(`vtask: warning: ${terminalSafe(file)} is ignored: ${terminalSafe(errorMessage(e))}\n`);
    return [];
  }
  return rules;
}

/** Takes `--trust-endpoint URL`, `--allow-key-env VAR@HOST` and `--root DIR` (also `--flag=value`) out of the arguments. */
function allowances(argv: readonly string[], cwd: string): Allowances {
  const out: Allowances = { rules: [], roots: [], rest: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const eq = arg.indexOf('=');
    const flag = TRUST_FLAGS.find((f) => arg === f || (eq > 0 && arg.slice(0, eq) === f));
    if (!flag) {
      out.rest.push(arg);
      continue;
    }
    const value = arg === flag ? argv[++i] : arg.slice(eq + 1);
    if (!value || (arg === flag && value.startsWith('--'))) throw new UsageError(`${flag} needs a value`);
    if (flag === '--root') {
      out.roots.push(path.resolve(cwd, value));
      continue;
    }
    let rule: EndpointRule;
    try {
      rule = parseEndpointRule(value);
    } catch (e) {
      throw new UsageError(`${flag}: ${errorMessage(e)}`);
    }
    if (flag === '--allow-key-env' && !rule.variable)
      throw new UsageError(
        `--allow-key-env takes VAR@HOST (such as OPENAI_API_KEY@api.openai.com), not '${cut(value)}'`,
      );
    if (flag === '--trust-endpoint' && rule.variable)
      throw new UsageError(
        `--trust-endpoint takes a URL or host; to allow one variable, write --allow-key-env ${cut(value)}`,
      );
    out.rules.push(rule);
  }
  return out;
}

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
  diff A B        two runs compared: tasks whose band flipped, samples whose verdict flipped
  env RUN         an agent environment in the sandbox, speaking its protocol on stdin/stdout

Options:
  --allow-weak-isolation  (test, run, audit, env) let code and script verifiers run without the full
                  sandbox (bubblewrap); without it they are refused there. See docs/security.md, Isolation.
  --trust-endpoint URL    a task file's model profiles may send their key and \${env:...} headers
                  to URL (or a host); elsewhere they go without them. Repeatable.
  --allow-key-env VAR@HOST  the same for one variable only (HOST may be a URL). The same
                  entries may be listed in ~/.config/vtask/config.json: {"trustedEndpoints": [...]}.
  --root DIR      scripts and environments may read DIR (read-only) rather than only the task
                  file's own folder; DIR must contain the task file.
  -h, --help      show help (also: vtask help <command>, vtask <command> --help)
  -v, --version   print the version

Exit codes: 0 success, 1 a check failed, 2 usage error.`;

interface Command {
  readonly help: string;
  /** The command's options (options.ts): what `run` is given parsed. */
  readonly options: z.ZodObject;
  run(args: readonly string[], io: CliIO, signal: AbortSignal): number | Promise<number>;
}

/** A command whose arguments are read against its option table before it runs. */
function withOptions<T extends z.ZodObject>(
  help: string,
  options: T,
  run: (args: Parsed<T>, io: CliIO, signal: AbortSignal) => number | Promise<number>,
): Command {
  return { help, options, run: (argv, io, signal) => run(parseOptions(options, argv), io, signal) };
}

/** The command table: name → what it does. */
const COMMANDS: Readonly<Record<string, Command>> = {
  check: withOptions(checkHelp, checkOptions, (args, io) => check(args, io)),
  test: withOptions(testHelp, testOptions, (args, io) => test(args, io)),
  run: withOptions(runHelp, runOptions, (args, io, signal) => run(args, io, signal)),
  export: withOptions(exportHelp, exportOptions, (args, io) => exportCommand(args, io)),
  import: withOptions(importHelp, importOptions, (args, io) => importCommand(args, io)),
  serve: withOptions(serveHelp, serveOptions, (args, io, signal) => serveCommand(args, io, signal)),
  audit: withOptions(auditHelp, auditOptions, (args, io, signal) => auditCommand(args, io, signal)),
  stats: withOptions(statsHelp, statsOptions, (args, io, signal) => statsCommand(args, io, signal)),
  diff: withOptions(diffHelp, diffOptions, (args, io) => diffCommand(args, io)),
  env: withOptions(envHelp, envOptions, (args, io, signal) => envCommand(args, io, signal)),
};

/** Each command's name, help and option table, as the command line reads them. */
export function commandTables(): { name: string; help: string; options: z.ZodObject }[] {
  return Object.entries(COMMANDS).map(([name, c]) => ({ name, help: c.help, options: c.options }));
}

/**
 * Commands that have something to finish when stopped (samples to keep, a server or an
 * environment to close): Ctrl-C and SIGTERM ask them to stop. Every other command is ended
 * by the signal at once.
 */
export function stopsGracefully(command: string | undefined): boolean {
  return command === 'run' || command === 'serve' || command === 'env' || command === 'audit';
}

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
export async function runCli(
  argv: readonly string[],
  io: CliIO,
  signal: AbortSignal = new AbortController().signal,
): Promise<number> {
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
  let allowed: Allowances;
  try {
    allowed = allowances(rest, io.cwd);
  } catch (e) {
    return usageError(io, `vtask ${name}: ${errorMessage(e)}`, name);
  }
  setSecretTrust({ rules: [...configuredRules(io), ...allowed.rules], workspaceTrusted: true });
  setProjectRoots(allowed.roots);
  const stopWarning = onSecretsWithheld((message) => io.stderr.write(`vtask: warning: ${terminalSafe(message)}\n`));
  const allowWeak = allowed.rest.includes(ALLOW_WEAK_FLAG);
  setAllowWeakIsolation(allowWeak);
  // Said once per run, when the first code or script check takes the sandbox.
  let told = false;
  const stopTelling = onSandboxUse((sb) => {
    if (!told) io.stderr.write(`vtask: ${sb.notice()}\n`);
    told = true;
  });
  try {
    refuseSpecialPaths(rest);
    return await command.run(
      allowed.rest.filter((a) => a !== ALLOW_WEAK_FLAG),
      io,
      signal,
    );
  } catch (e) {
    if (e instanceof UsageError || e instanceof MissingPathError) {
      return usageError(io, `vtask ${name}: ${e.message}`, name);
    }
    // Anything else still ends in one line, not a stack trace (VTASK_DEBUG=1 shows the stack).
    const err = errnoOf(e);
    const what = err.code && err.syscall ? `${err.path ? `${err.path}: ` : ''}${fsReason(e)}` : errorMessage(e);
    io.stderr.write(`vtask ${name}: error: ${what}\n`);
    if (process.env.VTASK_DEBUG) io.stderr.write(`${e instanceof Error ? (e.stack ?? '') : ''}\n`);
    return EXIT.failed;
  } finally {
    stopTelling();
    stopWarning();
    setAllowWeakIsolation(false);
    setSecretTrust({ rules: [], workspaceTrusted: true });
    setProjectRoots([]);
  }
}
