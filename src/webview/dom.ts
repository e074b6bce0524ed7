// Small DOM helpers. Text is only ever set with textContent, never parsed as HTML, so model
// output such as `<img src=x onerror=...>` stays text.

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className?: string,
  text?: string,
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

/** A codicon (the icon font VS Code uses), hidden from screen readers: labels carry meaning. */
export function icon(name: string): HTMLElement {
  const i = el('span', `codicon codicon-${name}`);
  i.setAttribute('aria-hidden', 'true');
  return i;
}

/** A button with an icon and a label (or an icon-only button with the label as its tooltip). */
export function button(
  label: string,
  iconName: string | undefined,
  onClick: () => void,
  options: { iconOnly?: boolean; className?: string } = {},
): HTMLButtonElement {
  const b = el('button', options.className);
  b.type = 'button';
  if (iconName) b.append(icon(iconName));
  if (options.iconOnly) {
    b.title = label;
    b.setAttribute('aria-label', label);
    b.classList.add('icon-button');
  } else b.append(el('span', undefined, label));
  b.addEventListener('click', onClick);
  return b;
}

const SVG = 'http://www.w3.org/2000/svg';

export function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number> = {},
): SVGElementTagNameMap[K] {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

export const pct = (x: number): string => `${Math.round(x * 100)}%`;

/** The page's `#root`, which every page of page.ts has; a page without one fails here, by name. */
export function pageRoot(): HTMLElement {
  const root = document.getElementById('root');
  if (!root) throw new Error('the page has no #root element');
  return root;
}

/** Shows `text` in the page's notice line `notice`, with the level's icon and a Dismiss button. */
export function showNoticeIn(notice: HTMLElement, level: 'info' | 'warning' | 'error', text: string): void {
  notice.className = `notice ${level}`;
  notice.replaceChildren(
    icon(level === 'info' ? 'info' : level),
    ` ${text}`,
    button('Dismiss', 'close', () => notice.replaceChildren(), { iconOnly: true }),
  );
}

/** A task's name as a link-styled button; `open` asks the host to open it. */
export function taskLink(file: string, task: string, open: () => void): HTMLElement {
  const b = el('button', 'link task-link', task);
  b.type = 'button';
  b.title = `Open ${task} in ${file}`;
  b.addEventListener('click', open);
  return b;
}

/**
 * Hands each message from the extension that `schema` reads to `receive`, and calls `unreadable`
 * for any other: the page says so rather than go on showing an older state as if it were current.
 */
export function onHostMessage<T>(
  schema: { safeParse(data: unknown): { success: true; data: T } | { success: false } },
  receive: (message: T) => void,
  unreadable: () => void,
): void {
  window.addEventListener('message', (event: MessageEvent) => {
    const parsed = schema.safeParse(event.data);
    if (parsed.success) receive(parsed.data);
    else unreadable();
  });
}
