// Probes made from the task's own passing cases: the same response with its answer changed
// (another number, another option, another word), and a refusal dressed in the format the
// verifier requires. A verifier without a gold answer (a regex, a check of form) is caught by
// these where the gold-based probes cannot reach it: `\d+` passes 73 as readily as 72, and
// `think: required` passes a refusal inside `<think>…</think>`.
import type { TaskSpec } from '../taskfile/resolve';
import { chosenOptions } from '../verifiers/choice';
import { wrongLike } from './gold';
import type { Probe, Severity } from './probe';
import { verifierLeaves, type VerifierLeaf } from './verifierParts';
import { at } from '../util/must';

/** Passing cases perturbed, first ones first. */
const CASES_PERTURBED = 2;
/** A final answer of at most this many words is the answer itself: its last word may change. */
const SHORT_ANSWER_WORDS = 3;
/** Kinds that read the answer against something they know: a changed answer should fail them. */
const ANSWER_KINDS: ReadonlySet<string> = new Set(['match', 'math', 'choice']);
/** Kinds whose verdict on a changed answer says nothing here (they judge, run or replay). */
const OTHER_KINDS: ReadonlySet<string> = new Set(['code', 'judge', 'script', 'trajectory', 'state']);
const FORM_KINDS: ReadonlySet<string> = new Set(['format', 'constraints', 'json']);
const LETTERS = ['A', 'B', 'C', 'D', 'E'];
const REFUSAL = "I'm sorry, but I can't help with that.";

/** The response split where the final answer starts: after the last `</think>`. */
function splitFinal(response: string): [head: string, final: string] {
  const at = response.lastIndexOf('</think>');
  return at < 0 ? ['', response] : [response.slice(0, at + '</think>'.length), response.slice(at + '</think>'.length)];
}

/** Every number changed (72 → 73, 0.5 → 1.5, \frac{3}{4} → \frac{4}{5}); undefined without one. */
function otherNumbers(text: string): string | undefined {
  return /\d/.test(text) ? text.replace(/\d+(?:\.\d+)?/g, (n) => wrongLike(n)) : undefined;
}

/** The one option the text chooses, replaced wherever it stands alone by the next option. */
function otherOption(text: string, options: readonly string[]): string | undefined {
  const { letters } = chosenOptions(text, options);
  if (letters.length !== 1) return undefined;
  const chosen = at(letters, 0);
  const other = at(options, (options.indexOf(chosen) + 1) % options.length);
  return text.replace(new RegExp(`(?<![\\p{L}\\p{N}])${chosen}(?![\\p{L}\\p{N}])`, 'gu'), other);
}

/** The answer word changed: inside the verifier's tags when it reads one, else in a short answer. */
function otherWord(text: string, tags: readonly string[]): string | undefined {
  for (const tag of tags) {
    const re = new RegExp(`(<${tag}>)([^<]*)(</${tag}>)`, 'g');
    if (re.test(text))
      return text.replace(
        re,
        (_, open: string, inner: string, close: string) => open + (inner.trim() ? wrongLike(inner) : inner) + close,
      );
  }
  const t = text.trim();
  const words = t.split(/\s+/);
  if (!t || words.length > SHORT_ANSWER_WORDS || !/\p{L}/u.test(words.at(-1) ?? '')) return undefined;
  return wrongLike(t.replace(/[.!?]+$/, ''));
}

/** The tags a verifier reads its answer from: `match`'s `tag`, and tags a `format` regex asks for. */
function requiredTags(leaves: readonly VerifierLeaf[]): string[] {
  const tags = leaves.flatMap((l) => {
    if (l.kind === 'match' && typeof l.params.tag === 'string') return [l.params.tag];
    if (l.kind === 'format' && typeof l.params.regex === 'string')
      return [...l.params.regex.matchAll(/<([A-Za-z_][\w-]*)>/g)].map((m) => at(m, 1));
    return [];
  });
  return [...new Set(tags.filter((t) => t !== 'think'))];
}

/**
 * Wrong answers of the shape the task's passing cases have: each of the first passing cases
 * with every number of its final answer changed, or its chosen option, or its answer word.
 * Only for verifiers that check an answer and nothing that needs a model, a program or a replay.
 */
export function perturbedCaseProbes(task: TaskSpec): Probe[] {
  const leaves = verifierLeaves(task.verify);
  if (task.environment || !leaves.some((l) => ANSWER_KINDS.has(l.kind)) || leaves.some((l) => OTHER_KINDS.has(l.kind)))
    return [];
  const choice = leaves.find((l) => l.kind === 'choice');
  const given = choice?.params.options;
  const options = Array.isArray(given) && given.every((o): o is string => typeof o === 'string') ? given : LETTERS;
  const tags = requiredTags(leaves);
  const out: Probe[] = [];
  for (const c of task.cases.filter((x) => x.expect === 'pass').slice(0, CASES_PERTURBED)) {
    const [head, final] = splitFinal(c.response);
    // A choice is its letter (the numbers beside it are the option's text); elsewhere a letter
    // is an option only in an answer without numbers.
    const changes: [string, string | undefined, string][] = [
      ['number', choice ? undefined : otherNumbers(final), 'every number changed'],
      ['option', choice || !/\d/.test(final) ? otherOption(final, options) : undefined, 'another option chosen'],
    ];
    if (!changes.some(([, t]) => t !== undefined))
      changes.push(['word', otherWord(final, tags), 'the answer word changed']);
    for (const [what, changed, how] of changes) {
      if (changed === undefined || changed === final) continue;
      out.push({
        id: `perturbed-${what}-case${c.index}`,
        family: 'wrong-answer',
        response: head + changed,
        expected: 'fail',
        severity: 'high',
        why: `case ${c.index} passes; with ${how} its answer is wrong (unless any answer of that shape is right)`,
      });
    }
  }
  return out;
}

/**
 * Answers picked at random, in the tag the verifier reads: a `match` regex that passes both an
 * arbitrary number and an arbitrary word checks a shape, not the answer.
 */
export function arbitraryAnswerProbes(task: TaskSpec): Probe[] {
  const leaves = verifierLeaves(task.verify);
  const regex = leaves.find((l) => l.kind === 'match' && l.params.mode === 'regex');
  if (!regex || task.environment || leaves.some((l) => OTHER_KINDS.has(l.kind))) return [];
  const tag = typeof regex.params.tag === 'string' ? regex.params.tag : undefined;
  const wrap = (x: string): string => (tag ? `<${tag}>${x}</${tag}>` : x);
  const probe = (id: string, answer: string, what: string): Probe => ({
    id,
    family: 'wrong-answer',
    response: wrap(answer),
    expected: 'fail',
    severity: 'high',
    why: `${answer} is ${what} picked at random: a pattern that accepts it accepts any (unless any is right)`,
  });
  return [probe('arbitrary-number', '4818', 'a number'), probe('arbitrary-word', 'Lyon', 'a word')];
}

/**
 * The refusal and the echoed prompt written in the format the verifier requires: a `<think>`
 * block first when a `format` part requires one, the answer inside the tags it reads. A
 * verifier that checks only the form passes them, whatever the question was.
 */
export function formattedDegenerateProbes(task: TaskSpec, echoSeverity: Severity): Probe[] {
  const leaves = verifierLeaves(task.verify);
  const think = leaves.some((l) => l.kind === 'format' && l.params.think === 'required');
  const tags = requiredTags(leaves);
  if (!think && !tags.length) return [];
  const wrap = (answer: string): string =>
    (think ? '<think>I do not know the answer.</think>\n' : '') + tags.reduce((a, t) => `<${t}>${a}</${t}>`, answer);
  // Form-only parts that also check instructions or a schema fail most refusals on their own.
  const formOnly = leaves.every((l) => FORM_KINDS.has(l.kind));
  const severity: Severity = formOnly && leaves.some((l) => l.kind !== 'format') ? 'medium' : 'high';
  const out: Probe[] = [
    {
      id: 'refusal-formatted',
      family: 'degenerate',
      response: wrap(REFUSAL),
      expected: 'fail',
      severity,
      why: 'a refusal in the required format answers nothing',
    },
  ];
  if (task.prompt.trim())
    out.push({
      id: 'echo-formatted',
      family: 'degenerate',
      response: wrap(task.prompt),
      expected: 'fail',
      severity: echoSeverity === 'low' ? 'low' : severity,
      why: 'the prompt repeated back in the required format is not an answer',
    });
  return out;
}
