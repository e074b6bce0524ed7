import { button, el } from './dom';

/** Rows a page of a dashboard list shows: a list of 100,000 makes 50 elements, not 100,000. */
export const PAGE_SIZE = 50;

/**
 * A list shown a page at a time, with ‹ › and "1–50 of 3,000". Only the page's rows exist in
 * the page; `render` makes one row. The page number is kept by the caller (it survives redraws).
 * With `total`, `items` are the page's rows already (the host pages the list).
 */
export function pagedList<T>(o: {
  readonly items: readonly T[];
  readonly total?: number;
  readonly page: number;
  readonly onPage: (page: number) => void;
  readonly render: (item: T, index: number) => HTMLElement;
  readonly className: string;
  readonly empty: string;
  readonly tag?: 'ul' | 'tbody';
}): { element: HTMLElement; pager: HTMLElement } {
  const total = o.total ?? o.items.length;
  const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
  const page = Math.min(Math.max(0, o.page), pages - 1);
  const list = el(o.tag ?? 'ul', o.className);
  const start = page * PAGE_SIZE;
  const shown = o.total === undefined ? o.items.slice(start, start + PAGE_SIZE) : o.items;
  shown.forEach((item, i) => list.append(o.render(item, start + i)));
  const pager = el('div', 'pager');
  if (!total) pager.append(el('span', 'muted', o.empty));
  else {
    const prev = button('Previous page', 'chevron-left', () => o.onPage(page - 1), {
      iconOnly: true,
      className: 'prev',
    });
    const next = button('Next page', 'chevron-right', () => o.onPage(page + 1), { iconOnly: true, className: 'next' });
    prev.disabled = page === 0;
    next.disabled = page >= pages - 1;
    const n = (x: number): string => x.toLocaleString('en-US');
    pager.append(prev, el('span', 'range', `${n(start + 1)}–${n(start + shown.length)} of ${n(total)}`), next);
  }
  return { element: list, pager };
}
