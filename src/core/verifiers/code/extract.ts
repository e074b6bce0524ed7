import { at } from '../../util/must';
/** Finding the program in an answer. */

export type CodeLanguage = 'python' | 'javascript';

const LABELS: Record<CodeLanguage, ReadonlySet<string>> = {
  python: new Set(['python', 'py', 'python3', 'py3']),
  javascript: new Set(['javascript', 'js', 'node', 'nodejs', 'mjs', 'cjs']),
};

interface Block {
  readonly label: string;
  readonly code: string;
}

/** Every fenced block (``` or ~~~), in order; an unclosed last fence runs to the end. */
export function fencedBlocks(text: string): Block[] {
  const lines = text.split('\n');
  const blocks: Block[] = [];
  let open: { fence: string; label: string; start: number } | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = at(lines, i).replace(/\r$/, '');
    if (!open) {
      const m = /^ {0,3}(`{3,}|~{3,})\s*([^\s`{]*)/.exec(line);
      if (m)
        open = {
          fence: at(m, 1),
          label: at(m, 2)
            .toLowerCase()
            .replace(/^\{?\.?/, ''),
          start: i + 1,
        };
    } else {
      const m = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line);
      if (m && at(m, 1)[0] === open.fence[0] && at(m, 1).length >= open.fence.length) {
        blocks.push({ label: open.label, code: lines.slice(open.start, i).join('\n') });
        open = undefined;
      }
    }
  }
  if (open) blocks.push({ label: open.label, code: lines.slice(open.start).join('\n').replace(/\s+$/, '') });
  return blocks;
}

/**
 * The program: the last fenced block labelled with the language (or unlabelled); failing that
 * the last fenced block of any label; failing that the whole answer.
 */
export function extractCode(
  answer: string,
  language: CodeLanguage,
): { code: string; from: 'fenced block' | 'whole answer'; label?: string } {
  const blocks = fencedBlocks(answer);
  const ok = LABELS[language];
  const pick = [...blocks].reverse().find((b) => b.label === '' || ok.has(b.label)) ?? blocks[blocks.length - 1];
  if (pick) return { code: pick.code, from: 'fenced block', label: pick.label };
  return { code: answer, from: 'whole answer' };
}

/** True when a JavaScript program is an ES module (it must then run as `.mjs`). */
export function isEsModule(code: string): boolean {
  return /^\s*(import\s*[\w{*'"]|export\s)/m.test(code) || /^\s*await\s/m.test(code);
}
