import { typeLabel } from '../schema/fields';
import { INSTRUCTIONS } from '../verifiers/constraints/instructions';
import { VERIFIERS } from '../verifiers/registry';
import { instructionDoc } from './completion';
import { contextAt } from './context';
import { slotAt } from './schemaAt';

/** Hover documentation in Markdown for the word at an offset. */
export interface Hover {
  readonly markdown: string;
  readonly start: number;
  readonly end: number;
}

const WORD = /[\w:/.\-]/;

/** The format reference in the repository; hovers link to a verifier's section of it. */
const REFERENCE_URL = 'https://github.com/vtask-dev/vtask/blob/HEAD/docs/format.md';
const reference = (anchor: string): string => `\n\n[Reference](${REFERENCE_URL}#${anchor})`;

/** The documentation for the key, verifier kind, instruction id or value under the cursor. */
export function hoverAt(text: string, offset: number): Hover | undefined {
  let start = offset;
  let end = offset;
  while (start > 0 && WORD.test(text[start - 1] ?? '')) start--;
  while (end < text.length && WORD.test(text[end] ?? '')) end++;
  let word = text.slice(start, end);
  // A key's own colon is not part of it: `math:` hovers as `math`.
  const isKey = /^:(\s|$)/.test(text.slice(end, end + 2)) || word.endsWith(':');
  if (word.endsWith(':')) {
    word = word.slice(0, -1);
    end--;
  }
  if (!word) return undefined;
  const range = { start, end };

  const instruction = INSTRUCTIONS.get(word);
  if (instruction)
    return {
      ...range,
      markdown: `**\`${instruction.id}\`** (instruction)\n\n${instructionDoc(instruction)}${reference('constraints')}`,
    };

  const ctx = contextAt(text, start);
  const slot = slotAt(ctx.path);
  if (isKey) {
    if (slot.type === 'verifier') {
      const kind = VERIFIERS.get(word);
      if (kind) {
        const params = Object.entries(kind.fields).map(
          ([k, f]) => `- \`${k}\` (${typeLabel(f.schema)}${f.required ? ', required' : ''}): ${f.doc}`,
        );
        return {
          ...range,
          markdown: `**\`${kind.kind}\`** verifier: ${kind.summary}\n\n${kind.doc}\n\n**Parameters**\n${params.join('\n')}${reference(kind.kind)}`,
        };
      }
    }
    if (slot.type === 'fields') {
      const f = slot.fields[word];
      if (f)
        return {
          ...range,
          markdown: `**\`${word}\`** (${typeLabel(f.schema)}${f.required ? ', required' : ''}) in ${slot.what}\n\n${f.doc}`,
        };
    }
    return undefined;
  }
  if (ctx.position === 'value' && ctx.key === 'expect' && (word === 'pass' || word === 'fail')) {
    return {
      ...range,
      markdown:
        word === 'pass' ? 'The verifier must **pass** this response.' : 'The verifier must **fail** this response.',
    };
  }
  return undefined;
}
