// Real messages for the task panel, made by the core as the extension makes them: a task file
// is parsed, scripted model answers are sampled through `sampleTasks` and verified by the real
// verifiers, the verifier is edited and the samples re-verified (`reverify`), and the view is
// built with `panelTaskView`. Used by test/browser/panel.test.mjs and scripts/bench-panel.mjs,
// which bundle this file with esbuild (scripts/bundle.mjs); nothing here is recorded, so no
// fixture goes stale when the core changes.
import fs from 'node:fs';
import path from 'node:path';
import { reverify, sampleView, type Reverified } from '../../src/core/panel/samples';
import { panelTaskView } from '../../src/core/panel/view';
import { runCases } from '../../src/core/run/cases';
import { auditTasks } from '../../src/core/audit/audit';
import { findSuspects } from '../../src/core/audit/readings';
import { auditView } from '../../src/core/panel/audit';
import { sampleTasks, type TaskRunResult } from '../../src/core/run/sampleTasks';
import type { SampleCache } from '../../src/core/sampling/cache';
import type { ModelProfile, Provider, Sample } from '../../src/core/sampling/types';
import { parseTaskFile, type TaskEntry } from '../../src/core/taskfile/parse';
import { runnableTasks, type TaskSpec } from '../../src/core/taskfile/resolve';
import type { VerifyContext } from '../../src/core/verifiers/verdict';
import { fromPanel, toPanel, type ToPanel } from '../../src/core/base/panelProtocol';

export { fromPanel, toPanel, reverify, panelTaskView, sampleView };

/** A scripted answer: its text, with a reasoning block or cut at max_tokens when asked. */
export type Answer = string | { readonly text: string; readonly reasoning?: string; readonly truncated?: boolean };

export const PROFILE: ModelProfile = {
  name: 'scripted',
  baseUrl: 'builtin:scripted',
  model: 'scripted-1',
  endpoint: 'chat',
  concurrency: 4,
  timeoutMs: 10_000,
};

export interface LoadedTask {
  readonly entry: TaskEntry;
  readonly spec: TaskSpec;
}

/** The task `id` of a task file's text, parsed and resolved as the extension does. */
export function loadTask(text: string, id: string): LoadedTask {
  const file = parseTaskFile(text);
  const errors = file.issues.filter((i) => i.severity === 'error');
  if (errors.length) throw new Error(`the task file has errors: ${errors.map((i) => i.message).join('; ')}`);
  const entry = file.tasks.find((t) => t.id === id);
  const spec = runnableTasks(file).tasks.find((t) => t.id === id);
  if (!entry || !spec) throw new Error(`no runnable task ${id}`);
  return { entry, spec };
}

/** A model that gives the scripted answers, in order, to any request. */
export function scriptedProvider(answers: readonly Answer[]): Provider {
  let next = 0;
  return {
    id: 'scripted',
    async sample(_request, n) {
      const out: Sample[] = [];
      for (let k = 0; k < n; k++) {
        const a = answers[next++ % answers.length] ?? '';
        const o = typeof a === 'string' ? { text: a } : a;
        out.push({
          text: o.text,
          ...(o.reasoning ? { reasoning: o.reasoning } : {}),
          finishReason: o.truncated ? 'length' : 'stop',
          ...(o.truncated ? { truncated: true } : {}),
          model: PROFILE.model,
          takenAt: '2026-01-01T00:00:00.000Z',
        });
      }
      return out;
    },
  };
}

/**
 * A judge model for `judge` verifiers: a criterion is met when the graded response mentions
 * scattering; a response containing GARBLED gets a reply that is not JSON (the verdict is then
 * an error, as with a real judge that misbehaves).
 */
export const scriptedJudge: VerifyContext['judge'] = () => ({
  id: 'scripted-judge',
  async sample(request) {
    const user = request.messages[request.messages.length - 1]?.content ?? '';
    // The judge prompt ends with the task and the response as one JSON object.
    const json = user.slice(user.lastIndexOf('\n{') + 1);
    const response = (JSON.parse(json) as { response: string }).response;
    const text = response.includes('GARBLED')
      ? 'I would rather not grade this one.'
      : JSON.stringify({ criteria: [{ id: 1, met: /scatter/i.test(response), why: 'scripted' }] });
    return [{ text, finishReason: 'stop', model: 'scripted-judge', takenAt: '2026-01-01T00:00:00.000Z' }];
  },
});

/** The part of the sample cache sampleTasks uses, in memory. */
function memoryCache(): SampleCache {
  const m = new Map<string, Sample>();
  const cache: Pick<SampleCache, 'getMany' | 'put'> = {
    getMany: (keys) => keys.map((k) => m.get(k)),
    put: (key, sample) => void m.set(key, sample),
  };
  return cache as SampleCache;
}

/** Samples a task once per answer (a scripted model) and verifies every sample. */
export async function sampleRun(
  file: string,
  task: TaskSpec,
  answers: readonly Answer[],
  o: { judge?: VerifyContext['judge'] } = {},
): Promise<TaskRunResult> {
  const [run] = await sampleTasks([task], {
    file,
    cache: memoryCache(),
    profileFor: () => PROFILE,
    providerFor: () => scriptedProvider(answers),
    samples: answers.length,
    fresh: true,
    signal: new AbortController().signal,
    trusted: true,
    judge: o.judge,
  });
  if (!run || run.error) throw new Error(`sampling failed: ${run?.error ?? 'no result'}`);
  return run;
}

// ---------------------------------------------------------------------------------------------
// The answers.

const words = (n: number, from = 0): string =>
  Array.from(
    { length: n },
    (_, i) => ['the', 'sea', 'rolls', 'over', 'grey', 'stones', 'and', 'sand'][(i + from) % 8],
  ).join(' ');

/** Answers to panel/sea, hostile ones included; `hostile` names the index of each hostile one. */
export function seaAnswers(): { answers: Answer[]; hostile: Record<string, number> } {
  const hostile: Record<string, number> = {};
  const answers: Answer[] = [];
  const add = (a: Answer, name?: string): void => {
    if (name) hostile[name] = answers.length;
    answers.push(a);
  };
  add('The sea is wide and grey and it never sleeps.');
  add('The sea is wide, grey, and restless.');
  add(`${words(30)}.`); // passes under 50 words, fails under 25: flips when the verifier is edited
  add(`${words(40, 3)}.`);
  add('<img src=x onerror="window.__xss=1">', 'img');
  add('<script>window.__xss=1</script>', 'script');
  add(
    '</pre><img src=x onerror=window.__xss=1><svg onload="window.__xss=1"></svg><iframe srcdoc="<script>parent.__xss=1</script>"></iframe>',
    'markup',
  );
  add(`${'The sea keeps rolling in and out of the bay again and again. '.repeat(3300)}`, 'big'); // ~200 KB
  add('\u0000\u0001\u0007\b\u001b[31mred\u001b[0m\u007f \ufffe\ud800 tail\r\nline\u2028sep', 'binary');
  add('La mer 🌊 海は広い البحر واسع \u202eevil\u202c e\u0301 Ωμέγα 👩‍👩‍👧', 'unicode');
  add('', 'empty');
  add(
    { text: 'The sea is calm tonight.', reasoning: 'Count the words, avoid commas; <b>keep it short</b>.' },
    'reasoning',
  );
  add({ text: 'The sea goes on and on and on and', truncated: true }, 'truncated');
  add('{{constructor.constructor("window.__xss=1")()}} javascript:window.__xss=1 ${window.__xss=1}', 'template');
  add('Waves, wind, salt, and gulls all over the long grey shore of the northern sea.');
  add(`${words(60, 1)} and more`);
  return { answers, hostile };
}

export function judgedAnswers(): Answer[] {
  return [
    'The sky is blue because air molecules scatter blue light more than red light.',
    'Because of scattering, blue light spreads across the whole sky.',
    'It just is.',
    'GARBLED answer the judge will not grade.',
    'Sunlight scatters off the air and the short blue waves scatter most.',
    'The sky reflects the colour of the ocean.',
    'GARBLED again, with a comma.',
    'Blue light scatters more in the atmosphere than other colours do.',
  ];
}

/** n answers to panel/clips: right, wrong, hedged and worded ones, some with reasoning. */
export function mathAnswers(n: number): Answer[] {
  return Array.from({ length: n }, (_, i) => {
    if (i % 11 === 0)
      return {
        text: `So she sold ${48 + 24} in total: \\boxed{72}`,
        reasoning: `April 48, May 24, total 72 (sample ${i}).`,
      };
    if (i % 5 === 1) return `48 + 48 = 96, so the answer is \\boxed{96}. (${i})`;
    if (i % 7 === 2) return `It is either \\boxed{72} or \\boxed{24}. (${i})`;
    return `In May she sold 48 / 2 = 24 clips, so altogether 48 + 24 = 72. \\boxed{72} (${i})`;
  });
}

/** n answers to panel/three (three IFEval constraints), of 20 to 80 words. */
export function harbourAnswers(n: number): Answer[] {
  return Array.from({ length: n }, (_, i) => {
    const w = 20 + ((i * 7) % 60);
    let t = `${Array.from({ length: w }, (_, k) => ['the', 'harbour', 'is', 'quiet', 'tonight', 'boats', 'rest', 'under', 'lamps'][(i + k) % 9]).join(' ')}.`;
    if (i % 4 === 1) t = t.replace('harbour', 'harbour, still');
    if (i % 6 === 2) t = t.replace(/^the/, 'The');
    return t;
  });
}

// ---------------------------------------------------------------------------------------------
// The messages the tests send.

export interface PanelFixture {
  /** panel/sea after its verifier was edited (50 → 25 words): samples re-verified, flips marked. */
  readonly sea: ToPanel & { type: 'task' };
  /** Index of each hostile answer among panel/sea's samples. */
  readonly hostile: Record<string, number>;
  /** panel/judged: pass, fail and error verdicts (a judge whose reply is not JSON). */
  readonly judged: ToPanel & { type: 'task' };
  /** panel/clips with 1,000 math samples. */
  readonly large: ToPanel & { type: 'task' };
  /** Two new samples of panel/sea streaming in. */
  readonly streamed: ToPanel & { type: 'samples' };
  /** panel/sea edited again in the file (50 → 40 words), as when the author edits the YAML. */
  readonly seaEditedAgain: ToPanel & { type: 'task' };
  /** The flips of the edit of panel/sea. */
  readonly flips: Pick<Reverified, 'gained' | 'lost'>;
  /** panel/sea with an audit of a regex that accepts anything, whose prompt is markup, and suspects among its samples. */
  readonly audited: ToPanel & { type: 'task' };
}

export const FIXTURE = 'test/fixtures/panel/panel.vtask';

/** Every message the browser tests send; `root` is the repository. */
export async function panelFixture(root: string, o: { largeSamples?: number } = {}): Promise<PanelFixture> {
  const file = path.join(root, FIXTURE);
  const text = fs.readFileSync(file, 'utf8');
  const shown = FIXTURE;

  // panel/sea: sampled with the verifier as written, then re-verified after an edit of it.
  const sea = loadTask(text, 'panel/sea');
  const { answers, hostile } = seaAnswers();
  const first = await sampleRun(file, sea.spec, answers);
  const editedText = text.replace('num_words: 50', 'num_words: 25');
  const edited = loadTask(editedText, 'panel/sea');
  const r = await reverify(edited.spec, first, { file, trusted: true });
  const cases = await runCases([edited.spec], { file, trusted: true });
  const seaView = panelTaskView(shown, edited.entry, edited.spec, cases, { run: r.run, flips: r, fresh: true });

  const again = loadTask(text.replace('num_words: 50', 'num_words: 40'), 'panel/sea');
  const r2 = await reverify(again.spec, first, { file, trusted: true });
  const againView = panelTaskView(shown, again.entry, again.spec, cases, { run: r2.run, flips: r2, fresh: true });

  const judged = loadTask(text, 'panel/judged');
  const judgedRun = await sampleRun(file, judged.spec, judgedAnswers(), { judge: scriptedJudge });
  const judgedView = panelTaskView(
    shown,
    judged.entry,
    judged.spec,
    await runCases([judged.spec], { file, trusted: true }),
    { run: judgedRun, fresh: true },
  );

  const clips = loadTask(text, 'panel/clips');
  const clipsRun = await sampleRun(file, clips.spec, mathAnswers(o.largeSamples ?? 1000));
  const largeView = panelTaskView(shown, clips.entry, clips.spec, undefined, { run: clipsRun, fresh: false });

  // Samples streaming in while sampling "more": the extension posts each as it is verified.
  const more = await sampleRun(file, edited.spec, ['A calm sea at night.', 'The sea, at night, is calm.']);
  const n = first.samples.length;
  const streamed = {
    type: 'samples' as const,
    task: 'panel/sea',
    samples: more.samples.map((s) => sampleView({ ...s, index: n + s.index })),
    done: 2,
    total: 2,
  };

  const check = <T extends ToPanel>(m: T): T => {
    toPanel.parse(m);
    return m;
  };
  return {
    sea: check({ type: 'task' as const, task: seaView }),
    hostile,
    seaEditedAgain: check({ type: 'task' as const, task: againView }),
    judged: check({ type: 'task' as const, task: judgedView }),
    large: check({ type: 'task' as const, task: largeView }),
    streamed: check(streamed),
    flips: { gained: r.gained, lost: r.lost },
    audited: check({
      type: 'task' as const,
      task: { ...seaView, audit: await auditOfWeakRegex(file, edited.spec, r.run) },
    }),
  };
}

/** The audit the host would show for a weak verifier: real probes through the real verifiers. */
async function auditOfWeakRegex(file: string, spec: TaskSpec, run: TaskRunResult) {
  const weak: TaskSpec = {
    ...spec,
    prompt: '<img src=x onerror="window.__xss=1"> Describe the sea.',
    verify: { match: { answer: '.*', mode: 'regex' } },
  };
  const [audit] = await auditTasks([weak], { file });
  // A sample that names two answers passes a contains match: a false-positive suspect.
  const hedged = {
    ...run.samples[0]!,
    text: 'It is \\boxed{72} or \\boxed{71}.',
    verdict: { pass: true, score: 1, reason: 'contains match of "72"', details: {} },
  };
  const suspects = await findSuspects(weak, file, [
    { index: hedged.index, response: hedged.text, verdict: hedged.verdict },
  ]);
  return auditView(audit!, suspects, weak);
}
