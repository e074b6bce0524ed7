import { closest, didYouMean } from '../base/suggest';
import { toJS, type YNode } from '../base/ynode';
import { defineKind, type ParamsContext } from './kind';
import { checkConstraints, constraintsFields } from './constraints/checkConstraints';
import { INSTRUCTIONS, kwargConflicts } from './constraints/instructions';

export const constraintsKind = defineKind({
  kind: 'constraints',
  summary: 'Every listed instruction holds; `score` is the share that hold.',
  doc: [
    'A list of IFEval, IFBench and vtask instruction ids with their kwargs:',
    '`- length_constraints:number_words: { relation: less than, num_words: 50 }`; an id without',
    'kwargs may be written alone (`- punctuation:no_comma`). Write `constraints: { mode: loose,',
    "instructions: [...] }` for IFEval's loose mode (8 variants of the response are tried).",
  ].join('\n'),
  fields: constraintsFields,
  listField: 'instructions',
  listItems: 'instructions',
  validate(ctx) {
    const list = ctx.param('instructions');
    if (list?.type === 'seq') for (const item of list.items) validateInstruction(ctx, item);
  },
  snippet: '\n  - ${1:length_constraints:number_words}: { relation: ${2|less than,at least|}, num_words: ${3:50} }',
  check: (response, params, ctx) => checkConstraints(response, params, ctx?.task?.prompt ?? ''),
});

function validateInstruction(ctx: ParamsContext, item: YNode): void {
  let idNode: YNode;
  let kwargs: YNode | null = null;
  if (item.type === 'scalar') idNode = item;
  else if (item.type === 'map' && item.items.length === 1 && item.items[0]) {
    idNode = item.items[0].key;
    kwargs = item.items[0].value;
  } else if (item.type === 'map' && item.items.length > 1 && item.items[1]) {
    ctx.report(
      'bad-value',
      item.items[1].key,
      'one instruction per list item: its kwargs go in a mapping after the id, as `- <id>: { kwarg: value }`',
    );
    return;
  } else {
    ctx.report('wrong-type', item, 'an instruction is `<id>: { kwargs }` or a bare id');
    return;
  }
  const id = String(idNode.type === 'scalar' ? idNode.value : '');
  const def = INSTRUCTIONS.get(id);
  if (!def) {
    const s = closest(id, INSTRUCTIONS.keys());
    ctx.report(
      'unknown-instruction',
      idNode,
      `unknown instruction id \`${id}\`${didYouMean(s)}`,
      s ? [{ title: `Change to \`${s}\``, start: idNode.span[0], end: idNode.span[1], text: s }] : undefined,
    );
    return;
  }
  if (kwargs && kwargs.type === 'scalar' && kwargs.value === null) kwargs = null;
  ctx.fields(kwargs, def.kwargs, idNode, `\`${id}\``);
  const values = toJS(kwargs);
  if (values && typeof values === 'object') {
    for (const conflict of kwargConflicts(id, values as Record<string, unknown>))
      ctx.report('bad-value', kwargs ?? idNode, `\`${id}\`: ${conflict}`);
  }
}
