// The task panel: renders what the extension sends. Model and user text is only ever set as
// text (textContent), never parsed as HTML, so a response containing <script> stays text.
import { toPanel, type FromPanel, type TaskView } from './protocol';

interface VsCodeApi {
  postMessage(message: FromPanel): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
const root = document.getElementById('root') as HTMLElement;

function el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

function section(title: string): HTMLElement {
  const s = el('section');
  s.append(el('h2', undefined, title));
  root.append(s);
  return s;
}

function render(task: TaskView): void {
  root.replaceChildren();
  const head = el('header');
  head.append(el('h1', undefined, task.id), el('span', 'file', task.file));
  root.append(head);

  const prompt = section('Prompt, as the model sees it');
  for (const m of task.messages) {
    const box = el('div', `message ${m.role}`);
    box.append(el('div', 'role', m.role), el('pre', 'content', m.content));
    prompt.append(box);
  }

  const verifier = section(`Verifier: ${task.verifier.kind}`);
  verifier.append(el('p', 'summary', task.verifier.summary), el('pre', 'params', task.verifier.params));

  const cases = section(`Cases (${task.cases.length})`);
  const run = el('button', undefined, 'Run cases');
  run.addEventListener('click', () => vscode.postMessage({ type: 'runCases' }));
  cases.append(run);
  const list = el('ol', 'cases');
  for (const c of task.cases) {
    const item = el('li', c.ok === undefined ? 'case' : c.ok ? 'case ok' : 'case bad');
    item.tabIndex = 0;
    const verdict = c.actual === undefined ? `expect ${c.expected}` : `${c.ok ? '✓' : '✗'} expected ${c.expected}, got ${c.actual}`;
    item.append(el('div', 'verdict', c.name ? `${verdict} · ${c.name}` : verdict), el('pre', 'response', c.response));
    if (c.reason) item.append(el('div', 'reason', c.reason));
    item.addEventListener('click', () => vscode.postMessage({ type: 'revealCase', index: c.index }));
    item.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') vscode.postMessage({ type: 'revealCase', index: c.index });
    });
    list.append(item);
  }
  cases.append(list);
}

window.addEventListener('message', (event: MessageEvent) => {
  const parsed = toPanel.safeParse(event.data);
  if (!parsed.success) return;
  const msg = parsed.data;
  if (msg.type === 'task') {
    vscode.setState(msg.task);
    render(msg.task);
  } else {
    root.replaceChildren(el('p', 'empty', msg.reason));
  }
});

const saved = toPanel.safeParse({ type: 'task', task: vscode.getState() });
if (saved.success && saved.data.type === 'task') render(saved.data.task);
vscode.postMessage({ type: 'ready' });
