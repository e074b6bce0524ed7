import { checkState, checkTrajectory, stateFields, trajectoryFields } from './agentChecks';
import { checkRegex, defineKind, type VerifierKind } from './kind';

const trajectoryKind = defineKind({
  kind: 'trajectory',
  summary: "The agent's tool calls have the required shape.",
  doc: 'For tasks with an `environment`: which tools were called, in what order, and how often. A call counts as made when its arguments were valid; a failure names the turn where it went wrong.',
  fields: trajectoryFields,
  snippet: '{ called: [${1:get}] }',
  // The trajectory is checked, not the response: no final-answer rule applies.
  wholeResponse: true,
  check: (_response, params, ctx) => checkTrajectory(params, ctx),
});

const stateKind = defineKind({
  kind: 'state',
  summary: "The environment's final state has the expected value.",
  doc: '`path` is a dotted path into the JSON the environment returns for `{"op": "state"}`.',
  fields: stateFields,
  validate(ctx) {
    const present = ['equals', 'contains', 'matches', 'json'].filter((k) => ctx.param(k) !== undefined);
    if (present.length !== 1)
      ctx.report(
        present.length ? 'bad-value' : 'missing-key',
        ctx.kindKey,
        '`state` needs exactly one of `equals`, `contains`, `matches` or `json`',
      );
    checkRegex(ctx, 'matches');
  },
  snippet: '{ path: "${1:lookups}", equals: ${2:1} }',
  wholeResponse: true,
  check: (_response, params, ctx) => checkState(params, ctx),
});

/** The kinds that check an agent's trajectory and its environment's final state. */
export const agentKinds: readonly VerifierKind[] = [trajectoryKind, stateKind];
