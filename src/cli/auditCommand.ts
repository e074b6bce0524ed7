import { recordOr } from '../core/base/record';
import { getPair, toJS } from '../core/base/ynode';
import { atLeast, auditTasks, findingCount, findingRecord, type TaskAudit } from '../core/audit/audit';
import { PROBE_FAMILIES, PROBE_NAMES, SEVERITIES, unknownProbeNames, type Severity } from '../core/audit/probes';
import { findSuspects, type Suspect } from '../core/audit/readings';
import { calibrateJudge, type Calibration } from '../core/audit/calibrate';
import { responseOf } from '../core/run/sampleTasks';
import { formatIssue } from '../core/taskfile/format';
import { parseTaskFile } from '../core/taskfile/parse';
import { runnableTasks } from '../core/taskfile/resolve';
import { cut } from '../core/util/cut';
import { plural } from '../core/util/plural';
import { cachedTaskRuns } from '../core/run/cachedRuns';
import { datasetsKnown, listTaskFiles, readTaskText } from './files';
import { rowFileText, rowFileType } from '../core/datasets/rowFiles';
import { parseRowTasks } from '../core/datasets/rowTasks';
import { EXIT, UsageError, type CliIO } from './io';
import { judgeProviders } from './judges';
import * as z from 'zod';
import {
  cacheDirOption,
  choice,
  defaultedOption,
  int,
  modelOptions,
  share,
  switchOption,
  valueOption,
  type ModelFlags,
  type Parsed,
} from './options';
import { terminalSafe } from './terminal';

export const auditHelp = `Usage: vtask audit PATH... [--json] [--probes LIST] [--fail-on SEVERITY] [--samples]

Tries adversarial and right-answer probes against each task's verifier, with no model: an
empty answer, a refusal (also in the format the verifier requires), the prompt echoed, the
gold answer hedged with a wrong one, a wrong answer of the right shape, a passing case with its
number, option or answer word changed, an arbitrary answer for a regex, a gold answer the
verifier cannot parse, the right answer written another way, programs that exit at once
or print what the tests expect, mutants of a passing case's program, injections aimed at a
judge. An agent task's probes are trajectories replayed in its environment (in the sandbox):
the answer probes after its first passing case's calls, and the gold answer with no call, with
calls only written in the text, after calls with wrong arguments, or after one call that writes
the state the verifier checks. A probe the verifier gets wrong is a finding, with a severity
(low, medium, high, critical). A JSONL or Parquet dataset named as a PATH in a known training
format is audited row by row, each row the task it stands for (as vtask run reads it); folders
give their task files only.
  --probes LIST        only these probes or families (comma-separated): ${PROBE_FAMILIES.join(', ')};
                       an unknown name is a usage error
  --fail-on SEVERITY   exit 1 when a finding is at least this severe (default high)
  --samples            also look through the samples \`vtask run\` cached (no request): failed
                       ones another reading of the answer would pass (false-negative
                       suspects: "72 dollars", "1,000", "seventy-two") and passed ones that
                       name several answers (false-positive suspects); they do not change the
                       exit code
  --cache-dir DIR      the sample cache (default: .vtask-cache at the workspace root)
  --calibrate          judge verifiers: judge each case --repeats times (default 3) and flag
                       a judge that disagrees with the cases (under 80%), gives one response
                       scores far apart (over 0.34), or changes its verdict with the rubric
                       reversed or neutral text added; needs the judge model
  --min-agreement X, --max-spread Y   other thresholds for --calibrate (a task's own
                       meta.calibration.min_agreement / max_spread come first)
  --json               print {"tasks": [{file, task, findings: [...]}], "findings": N}
  --base-url URL --model NAME   the judge model for judge verifiers (their probes are
                       skipped when no model resolves)
Exits 0 when no finding reaches --fail-on and every file is valid, 1 otherwise, 2 on usage errors.`;

type SuspectRow = Suspect & { readonly response: string };

interface AuditArgs extends ModelFlags {
  paths: string[];
  json: boolean;
  probes?: Set<string>;
  failOn: Severity;
  samples: boolean;
  calibrate: boolean;
  repeats: number;
  minAgreement?: number;
  maxSpread?: number;
}

/** The options of `vtask audit`. */
export const auditOptions = z.object({
  json: switchOption('--json', 'print one JSON object'),
  probes: valueOption('--probes', 'only these probe families or probe names (comma-separated)', (v) => {
    const probes = new Set(
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    );
    if (!probes.size) throw new UsageError('--probes needs probe ids or families');
    const unknown = unknownProbeNames(probes);
    if (unknown.length)
      throw new UsageError(
        `--probes takes probe families (${PROBE_FAMILIES.join(', ')}, calibration) or probe names (${PROBE_NAMES.slice(0, 4).join(', ')}, ...: docs/cli.md lists them); got ${unknown.map((u) => `'${u}'`).join(', ')}`,
      );
    return probes;
  }),
  failOn: defaultedOption(
    '--fail-on',
    'the lowest severity that fails the audit',
    choice(SEVERITIES, (v) => `--fail-on takes ${SEVERITIES.join(', ')}; got '${v}'`),
    'high',
  ),
  ...modelOptions,
  samples: switchOption('--samples', 'also read the cached samples of vtask run'),
  cacheDir: cacheDirOption,
  calibrate: switchOption('--calibrate', 'measure a judge against the cases'),
  repeats: defaultedOption('--repeats', 'judge calls per case when calibrating', int(2, 20), 3),
  minAgreement: valueOption('--min-agreement', 'the least agreement a calibration passes with', share('a share')),
  maxSpread: valueOption(
    '--max-spread',
    'the most score spread a calibration passes with',
    share('a score difference'),
  ),
});

function argsOf({ options, positional }: Parsed<typeof auditOptions>): AuditArgs {
  if (!positional.length) throw new UsageError('give at least one file or folder');
  return { ...options, paths: positional };
}

export async function auditCommand(
  parsed: Parsed<typeof auditOptions>,
  io: CliIO,
  signal: AbortSignal,
): Promise<number> {
  const args = argsOf(parsed);
  const problemsTo = args.json ? io.stderr : io.stdout;
  const listed = listTaskFiles(args.paths, problemsTo);
  let invalid = listed.errors;
  if (!(await datasetsKnown(listed.files, problemsTo))) return EXIT.failed;
  const out: { file: string; audit: TaskAudit; line: number; suspects: SuspectRow[]; calibration?: Calibration }[] = [];
  let tasksSeen = 0;
  const skippedReasons = new Map<string, number>();
  for (const file of listed.files) {
    // A dataset's rows are read as tasks, each the task it stands for (as `vtask run` reads them).
    const read = rowFileType(file) ? { text: await rowFileText(file) } : readTaskText(file);
    if ('error' in read) {
      problemsTo.write(read.error + '\n');
      invalid++;
      continue;
    }
    const parsed = rowFileType(file) ? parseRowTasks(read.text, { maxRows: Infinity }) : parseTaskFile(read.text);
    const errors = parsed.issues.filter((i) => i.severity === 'error');
    invalid += errors.length;
    for (const e of errors) problemsTo.write(terminalSafe(formatIssue(file, parsed.lines, e)) + '\n');
    const { tasks } = runnableTasks(parsed);
    const models = parsed.parts
      .map((p) => (p.node ? getPair(p.node, 'models')?.value : undefined))
      .find((m) => m?.type === 'map');
    const judge = judgeProviders(
      recordOr(toJS(models)),
      args,
      () => tasks.find((t) => t.sampling.model)?.sampling.model,
    );
    const audits = await auditTasks(tasks, { file, only: args.probes, judge, signal });
    tasksSeen += tasks.length;
    const runs = args.samples
      ? await cachedTaskRuns([file], {
          baseUrl: args.baseUrl,
          model: args.model,
          cacheDir: args.cacheDir,
          read: () => read.text,
        })
      : undefined;
    for (const probed of audits) {
      const task = tasks.find((t) => t.id === probed.task);
      const calibration =
        args.calibrate && task
          ? await calibrateJudge(task, file, {
              judge,
              repeats: args.repeats,
              signal,
              ...(args.minAgreement !== undefined ? { minAgreement: args.minAgreement } : {}),
              ...(args.maxSpread !== undefined ? { maxSpread: args.maxSpread } : {}),
            })
          : undefined;
      const audit = calibration ? { ...probed, findings: [...calibration.findings, ...probed.findings] } : probed;
      const run = runs?.get(`${file}\0${audit.task}`);
      const suspects = run
        ? (
            await findSuspects(
              run.task,
              file,
              run.samples.map((x) => ({ index: x.index, response: responseOf(x), verdict: x.verdict })),
              { judge, signal },
            )
          ).map((x) => ({ ...x, response: responseOf(run.samples.find((y) => y.index === x.sample) ?? { text: '' }) }))
        : [];
      out.push({
        file,
        audit,
        line: parsed.lines.position(audit.offset).line + 1,
        suspects,
        ...(calibration ? { calibration } : {}),
      });
      for (const s of audit.skipped) skippedReasons.set(s.reason, (skippedReasons.get(s.reason) ?? 0) + 1);
    }
  }
  const findings = out.flatMap((o) => o.audit.findings);
  const failing = findings.filter((f) => atLeast(f.severity, args.failOn)).length;
  if (args.json) {
    const tasks = out.map(({ file, audit, suspects, calibration }) => ({
      file,
      task: audit.task,
      probes: audit.probes,
      findings: audit.findings.map(findingRecord),
      ...(audit.skipped.length ? { skipped: audit.skipped } : {}),
      ...(calibration
        ? {
            calibration: {
              cases: calibration.cases,
              repeats: args.repeats,
              agreement: calibration.agreement,
              spread: calibration.spread,
              order_flips: calibration.orderFlips,
              length_flips: calibration.lengthFlips,
              undecided: calibration.undecided,
            },
          }
        : {}),
      ...(args.samples
        ? {
            suspects: suspects.map((x) => ({
              sample: x.sample,
              kind: x.kind,
              reading: x.reading,
              response: x.response,
              reason: x.verdict.reason,
            })),
          }
        : {}),
    }));
    io.stdout.write(
      JSON.stringify({ tasks, findings: findings.length, failing, fail_on: args.failOn, invalid }) + '\n',
    );
  } else {
    for (const { file, audit, line, suspects, calibration: c } of out) {
      if (c)
        io.stdout.write(
          terminalSafe(
            `${file}:${line}: calibration: task ${audit.task}: agreement ${Math.round(c.agreement * 100)}% over ${plural(c.cases, 'case')} × ${args.repeats}, score spread ${c.spread.toFixed(2)}, ${plural(c.orderFlips, 'order flip')}, ${plural(c.lengthFlips, 'length flip')}${c.undecided ? `, ${c.undecided} undecided` : ''}`,
          ) + '\n',
        );
      for (const f of audit.findings) {
        io.stdout.write(
          terminalSafe(
            `${file}:${line}: ${f.severity}: task ${audit.task}: probe ${f.probe} (expected ${f.expected}, got ${f.verdict}): ${f.reason}`,
          ) + '\n',
        );
        io.stdout.write(terminalSafe(`    response: ${JSON.stringify(cut(f.response, 100))}`) + '\n');
        if (f.calls) io.stdout.write(terminalSafe(`    calls: ${cut(JSON.stringify(f.calls), 100)}`) + '\n');
      }
      for (const x of suspects) {
        const what =
          x.kind === 'false-negative'
            ? `failed, but passes read as ${x.reading}: ${x.verdict.reason}`
            : `passed, but ${x.reading}`;
        io.stdout.write(
          terminalSafe(`${file}:${line}: ${x.kind} suspect: task ${audit.task}: sample #${x.sample + 1} ${what}`) +
            '\n',
        );
        io.stdout.write(terminalSafe(`    response: ${JSON.stringify(cut(x.response, 100))}`) + '\n');
      }
    }
    if (args.samples) {
      const n = out.reduce((k, o) => k + o.suspects.length, 0);
      io.stdout.write(`${plural(n, 'suspect sample')} among the cached runs\n`);
    }
    for (const [reason, n] of skippedReasons)
      io.stdout.write(terminalSafe(`${plural(n, 'task')} had probes skipped: ${reason}`) + '\n');
    const flagged = out.filter((o) => o.audit.findings.length).length;
    io.stdout.write(
      `${findingCount(findings)} in ${flagged} of ${plural(tasksSeen, 'task')}; ${failing} at or above ${args.failOn}\n`,
    );
  }
  if (signal.aborted) return EXIT.failed;
  return failing > 0 || invalid > 0 ? EXIT.failed : EXIT.ok;
}
