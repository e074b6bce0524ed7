// Chat messages to the prompt format the built-in arithmetic models were trained on:
//   "Q: What is 17+25?\nA: "   ->   "42" then end-of-sequence.
import type { ChatMessage } from '../../base/chat';

// Two whole numbers around + - * (also × · x) or /, anywhere in the message: "What is 17 + 25?",
// "Compute 7×8.", "91 - 38 = ?".
const ARITHMETIC = /(\d+)\s*([+\-*×x·/÷])\s*(\d+)/;

const OPERATOR: Record<string, string> = { '+': '+', '-': '-', '*': '*', '×': '*', x: '*', '·': '*', '/': '/', '÷': '/' };

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

/** The prompt for a conversation: the last user message's question; system messages are ignored. */
export function promptFor(messages: readonly ChatMessage[]): string {
  let last: ChatMessage | undefined;
  for (const m of messages) if (m.role === 'user') last = m;
  const content = last?.content ?? messages[messages.length - 1]?.content ?? '';
  return `Q: ${extractQuestion(content)}\nA: `;
}
