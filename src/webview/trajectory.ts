// An agent sample's trajectory in the sample detail: one block per assistant turn with what the
// model said and each tool call (arguments, then the result or the error, highlighted), how it
// stopped, and the final state folded away. Everything is text nodes: a tool result holding
// `<script>` is shown, never run.
import { el, icon } from './dom';
import type { ToolCallView, TrajectoryView } from '../core/base/panelProtocol';

const STOP: Record<TrajectoryView['stop'], string> = {
  final: 'The model answered',
  max_turns: 'Stopped at the turn limit',
  error: 'The environment failed',
};

/** Turns drawn at first; a long trajectory shows the rest on request so the panel stays quick. */
const FIRST_TURNS = 60;

function callBlock(c: ToolCallView): HTMLElement {
  const box = el('div', `tool-call${c.error !== undefined ? ' failed' : ''}`);
  const head = el('div', 'call-head');
  head.append(icon('tools'), el('code', 'tool', c.tool), el('pre', 'args', c.args));
  const out = c.error !== undefined ? el('pre', 'call-error', c.error) : el('pre', 'call-result', c.result ?? '');
  if (c.error !== undefined) out.prepend(icon('error'), ' ');
  box.append(head, out);
  return box;
}

function turnBlock(t: TrajectoryView['turns'][number], failed: boolean): HTMLElement {
  const box = el('section', failed ? 'turn failed-turn' : 'turn');
  box.dataset.turn = String(t.turn);
  const head = el('div', 'turn-head', `Turn ${t.turn}`);
  if (failed) head.append(' ', icon('error'), el('span', 'failed-turn-note', 'the verifier failed here'));
  box.append(head);
  if (t.text) box.append(el('pre', 'turn-text', t.text));
  for (const c of t.calls) box.append(callBlock(c));
  return box;
}

export function trajectoryElement(t: TrajectoryView): HTMLElement {
  const root = el('div', 'trajectory');
  const summary = el('p', `stop stop-${t.stop}`);
  summary.append(
    icon(t.stop === 'final' ? 'pass' : t.stop === 'error' ? 'error' : 'warning'),
    ` ${STOP[t.stop]} after ${t.turns.length} turn${t.turns.length === 1 ? '' : 's'} and ${t.calls} tool call${t.calls === 1 ? '' : 's'}`,
  );
  if (t.error) summary.append(el('span', 'stop-error', `: ${t.error}`));
  const turns = el('div', 'turns');
  const block = (x: TrajectoryView['turns'][number]): HTMLElement => turnBlock(x, x.turn === t.failedTurn);
  // The failed turn is drawn even when it lies past the first turns shown.
  const first = t.turns.slice(0, FIRST_TURNS);
  const late =
    t.failedTurn !== undefined && t.failedTurn > (first.at(-1)?.turn ?? 0)
      ? t.turns.find((x) => x.turn === t.failedTurn)
      : undefined;
  turns.append(...first.map(block));
  root.append(summary, turns);
  if (t.turns.length > FIRST_TURNS) {
    const more = el('button', 'more-turns', `Show ${t.turns.length - FIRST_TURNS} more turns`);
    more.type = 'button';
    const lateBlock = late ? block(late) : undefined;
    more.addEventListener('click', () => {
      lateBlock?.remove();
      turns.append(...t.turns.slice(FIRST_TURNS).map(block));
      more.remove();
    });
    if (lateBlock) turns.append(lateBlock);
    root.append(more);
  }
  if (t.state !== undefined) {
    const d = el('details', 'final-state');
    d.append(el('summary', undefined, 'Final state'), el('pre', undefined, t.state));
    root.append(d);
  }
  return root;
}
