// Messages for the task panel's agent samples, made by the core as the extension makes them:
// an agent task parsed from test/fixtures/panel/agent.vtask, its final answers verified by the
// real verifier, each sample carrying the trajectory the agent loop records (the tool calls,
// their results or errors, the stop reason, the final state), a verifier edit re-verified so
// verdicts flip, and the view built by panelTaskView. Bundled by test/browser/panel.test.mjs.
import fs from 'node:fs';
import path from 'node:path';
import type { Trajectory, TrajectoryStep } from '../../src/core/agent/types';
import type { ChatMessage } from '../../src/core/base/chat';
import { fromPanel, toPanel, type ToPanel } from '../../src/core/base/panelProtocol';
import { reverify } from '../../src/core/panel/samples';
import { trajectoryCalls } from '../../src/core/panel/trajectory';
import { panelTaskView } from '../../src/core/panel/view';
import { loadTask, sampleRun } from './panelMessages';

export { fromPanel };

export const AGENT_FIXTURE = 'test/fixtures/panel/agent.vtask';

export const XSS = '<img src=x onerror="window.__xss=1"><script>window.__xss=1</script>';

interface Turn {
  readonly text: string;
  readonly calls?: readonly { tool: string; args: string; outcome: TrajectoryStep['outcome'] }[];
}

/** A trajectory as the loop records it: assistant messages with tool calls, tool messages, steps. */
function trajectory(
  turns: readonly Turn[],
  o: { stop?: Trajectory['stop']; error?: string; state?: unknown } = {},
): Trajectory {
  const messages: ChatMessage[] = [];
  const steps: TrajectoryStep[] = [];
  turns.forEach((t, i) => {
    const calls = (t.calls ?? []).map((c, k) => ({ id: `call_${i}_${k}`, name: c.tool, arguments: c.args }));
    messages.push({ role: 'assistant', content: t.text, ...(calls.length ? { tool_calls: calls } : {}) });
    (t.calls ?? []).forEach((c, k) => {
      const call = calls[k]!;
      let args: Record<string, unknown> | undefined;
      try {
        args = JSON.parse(c.args) as Record<string, unknown>;
      } catch {
        args = undefined;
      }
      steps.push({ turn: i + 1, call, ...(args ? { args } : {}), outcome: c.outcome });
      messages.push({ role: 'tool', tool_call_id: call.id, name: c.tool, content: JSON.stringify(c.outcome) });
    });
  });
  return {
    messages,
    steps,
    final: turns.at(-1)?.text ?? '',
    turns: turns.length,
    stop: o.stop ?? 'final',
    ...(o.error ? { error: o.error } : {}),
    ...('state' in o ? { state: o.state } : {}),
  };
}

/** The agent samples, by name: what each shows in the panel. */
export function agentTrajectories(): Record<string, Trajectory> {
  const long: Turn[] = Array.from({ length: 199 }, (_, i) => ({
    text: `Looking up key k${i}.`,
    calls: [{ tool: 'get', args: JSON.stringify({ key: `k${i}` }), outcome: { result: `value ${i}` } }],
  }));
  return {
    solved: trajectory(
      [
        {
          text: 'I will look the key up.',
          calls: [{ tool: 'get', args: '{"key": "fr"}', outcome: { result: 'Paris' } }],
        },
        { text: '<answer>Paris</answer>' },
      ],
      { state: { lookups: 1, store: { fr: 'Paris', de: 'Berlin' } } },
    ),
    toolError: trajectory(
      [
        {
          text: 'Trying the French key.',
          calls: [
            { tool: 'get', args: '{"key": "france"}', outcome: { error: 'no key france' } },
            {
              tool: 'get',
              args: '{"key": 7',
              outcome: { error: 'arguments are not JSON: Unexpected end of JSON input' },
            },
          ],
        },
        { text: '<answer>unknown</answer>' },
      ],
      { state: { lookups: 1 } },
    ),
    hostile: trajectory(
      [
        {
          text: `Calling ${XSS}`,
          calls: [{ tool: 'get', args: JSON.stringify({ key: XSS }), outcome: { result: XSS } }],
        },
        { text: `<answer>Paris</answer>${XSS}` },
      ],
      { state: { note: XSS } },
    ),
    forbidden: trajectory(
      [
        { text: 'Reading the key.', calls: [{ tool: 'get', args: '{"key": "fr"}', outcome: { result: 'Paris' } }] },
        {
          text: 'Saving a copy.',
          calls: [{ tool: 'set', args: '{"key": "copy", "value": "Paris"}', outcome: { result: 'ok' } }],
        },
        { text: '<answer>Paris</answer>' },
      ],
      { state: { lookups: 1 } },
    ),
    turnLimit: trajectory(
      [
        ...long,
        { text: 'Still looking.', calls: [{ tool: 'get', args: '{"key": "last"}', outcome: { result: null } }] },
      ],
      { stop: 'max_turns', state: { lookups: 200 } },
    ),
    envError: trajectory(
      [
        {
          text: 'Looking.',
          calls: [{ tool: 'get', args: '{"key": "fr"}', outcome: { error: 'the environment ended' } }],
        },
      ],
      { stop: 'error', error: 'the environment exited with code 1 before answering' },
    ),
  };
}

export interface AgentFixture {
  /** panel/kv with its agent samples, after a verifier edit (Paris → Berlin): verdicts flipped. */
  readonly agent: ToPanel & { type: 'task' };
  /** The sample index of each named trajectory. */
  readonly index: Record<string, number>;
  /** What "add as case" writes for each sample: the trajectory's calls. */
  readonly calls: Record<string, ReturnType<typeof trajectoryCalls>>;
}

export async function agentFixture(root: string): Promise<AgentFixture> {
  const file = path.join(root, AGENT_FIXTURE);
  const text = fs.readFileSync(file, 'utf8');
  const task = loadTask(text, 'panel/kv');
  const named = Object.entries(agentTrajectories());
  // The final answers come from the scripted model as single answers; each sample then gets
  const run = await sampleRun(
    file,
    { ...task.spec, environment: undefined },
    named.map(([, t]) => t.final),
  );
  // the trajectory that led to it (the environment is not started here), and is verified with it.
  const withTrajectories = { ...run, samples: run.samples.map((s) => ({ ...s, trajectory: named[s.index]![1] })) };
  const verified = (await reverify(task.spec, withTrajectories, { file, trusted: true })).run;
  // An edit of the verifier: the samples are verified again, and what passed now fails.
  const edited = loadTask(text.replace('answer: Paris', 'answer: Berlin'), 'panel/kv');
  const r = await reverify(edited.spec, verified, { file, trusted: true });
  const view = panelTaskView(AGENT_FIXTURE, edited.entry, edited.spec, undefined, {
    run: r.run,
    flips: r,
    fresh: true,
  });
  const message = { type: 'task' as const, task: view };
  toPanel.parse(message);
  return {
    agent: message,
    index: Object.fromEntries(named.map(([name], i) => [name, i])),
    calls: Object.fromEntries(named.map(([name, t]) => [name, trajectoryCalls(t)])),
  };
}
