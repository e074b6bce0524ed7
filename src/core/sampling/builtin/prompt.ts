// Chat messages to the prompt format the built-in arithmetic models were trained on:
//   "Q: What is 17+25?\nA: "   ->   "42" then end-of-sequence.
import type { ChatMessage } from '../../base/chat';
import { at } from '../../util/must';

// Two whole numbers around + - * (also × · x) or /, anywhere in the message: "What is 17 + 25?",
// "Compute 7×8.", "91 - 38 = ?".
const ARITHMETIC = /(\d+)\s*([+\-*×x·/÷])\s*(\d+)/;

const OPERATOR: Record<string, string> = {
  '+': '+',
  '-': '-',
  '*': '*',
  '×': '*',
  x: '*',
  '·': '*',
  '/': '/',
  '÷': '/',
};

/**
 * The question the model sees. The first `a op b` in the message becomes `What is a op b?`, the
 * exact form of the training data. A message without one is passed as it is, on one line: the
 * model still answers (with digits, since that is all it knows), and verifiers judge the result.
 */
export function extractQuestion(content: string): string {
  const m = ARITHMETIC.exec(content);
  if (m) return `What is ${m[1]}${OPERATOR[m[2]!] ?? m[2]}${m[3]}?`;
  return content.replace(/\s+/g, ' ').trim();
}

function lastUserContent(messages: readonly ChatMessage[]): string {
  let last: ChatMessage | undefined;
  for (const m of messages) if (m.role === 'user') last = m;
  return last?.content ?? messages[messages.length - 1]?.content ?? '';
}

/** The prompt for a conversation: the last user message's question; system messages are ignored. */
export function promptFor(messages: readonly ChatMessage[]): string {
  return `Q: ${extractQuestion(lastUserContent(messages))}\nA: `;
}

export const DEMO_NOTE =
  'the built-in demo model only does a+b and a-b below 100 and a*b up to 12: its results say nothing about this task';
/** The note of an agent task: with tools the demo model only asks add, sub or mul for one `a op b`. */
export const DEMO_TOOLS_NOTE =
  'with tools, the built-in demo model only calls add, sub or mul for one a+b, a-b or a*b question: its results say nothing about this task';

/** Whether the message asks one of the sums the models were trained on (models/train.py). */
function trainedQuestion(content: string): boolean {
  const m = ARITHMETIC.exec(content);
  if (!m) return false;
  const a = Number(m[1]);
  const b = Number(m[3]);
  const op = OPERATOR[at(m, 2)];
  if (op === '+') return a < 100 && b < 100;
  if (op === '-') return a < 100 && b <= a;
  return op === '*' && a <= 12 && b <= 12;
}

/**
 * Why the built-in model's results for a conversation mean nothing, or undefined when it asks
 * for arithmetic the model was trained on. Its digits fail a word problem (`too_hard`) and pass
 * a constraint such as "no commas" (`too_easy`) whatever the task is worth.
 */
export function demoNote(messages: readonly ChatMessage[], tools = false): string | undefined {
  if (!tools) return trainedQuestion(lastUserContent(messages)) ? undefined : DEMO_NOTE;
  // With tools (an agent task) the numbers may be of any size: the tools do the arithmetic.
  const m = ARITHMETIC.exec(lastUserContent(messages));
  return m && ['+', '-', '*'].includes(OPERATOR[m[2] as string] ?? '') ? undefined : DEMO_TOOLS_NOTE;
}
