import * as z from 'zod';
import { field } from '../schema/fields';
import { checkState, checkTrajectory, type StateParams, type TrajectoryParams } from './agentChecks';
import { checkRegex, type VerifierKind } from './kind';

const names = z.array(z.string().min(1));

const trajectoryKind: VerifierKind = {
  kind: 'trajectory',
  summary: 'The agent\'s tool calls have the required shape.',
  doc: 'For tasks with an `environment`: which tools were called, in what order, and how often. A call counts as made when its arguments were valid; a failure names the turn where it went wrong.',
  fields: {
    called: field(names, 'Tools that must be called at least once.', ['get']),
    not_called: field(names, 'Tools that must never be called.', ['delete']),
    order: field(names, 'Tools that must be called in this relative order.', ['search', 'get']),
    max_tool_calls: field(z.number().int().min(0), 'At most this many tool calls.', 3),
    max_turns: field(z.number().int().min(1), 'At most this many assistant turns.', 6),
  },
  snippet: '{ called: [${1:get}] }',
  // The trajectory is checked, not the response: no final-answer rule applies.
  wholeResponse: true,
  check: (_response, params, ctx) => checkTrajectory(params as TrajectoryParams, ctx),
};

const stateKind: VerifierKind = {
  kind: 'state',
  summary: 'The environment\'s final state has the expected value.',
  doc: '`path` is a dotted path into the JSON the environment returns for `{"op": "state"}`.',
  fields: {
    path: field(z.string().min(1), 'A dotted path into the final state, such as `orders.0.status`.', 'lookups', true),
    equals: field(z.unknown(), 'The value must equal this (deep equality).', 1),
    contains: field(z.unknown(), 'The value (a list or text) must contain this.', 'Paris'),
    matches: field(z.string(), 'The value, as text, must match this regular expression.', '^ok'),
    json: field(z.record(z.string(), z.unknown()), 'The value must satisfy this JSON Schema.', { type: 'integer' }),
  },
  validate(ctx) {
    const present = ['equals', 'contains', 'matches', 'json'].filter((k) => ctx.param(k) !== undefined);
    if (present.length !== 1) ctx.report(present.length ? 'bad-value' : 'missing-key', ctx.kindKey, '`state` needs exactly one of `equals`, `contains`, `matches` or `json`');
    checkRegex(ctx, 'matches');
  },
  snippet: '{ path: "${1:lookups}", equals: ${2:1} }',
  wholeResponse: true,
  check: (_response, params, ctx) => checkState(params as unknown as StateParams, ctx),
};

/** The kinds that check an agent's trajectory and its environment's final state. */
export const agentKinds: readonly VerifierKind[] = [trajectoryKind, stateKind];
