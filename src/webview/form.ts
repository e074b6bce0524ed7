import { button, el } from './dom';
import { rowIdentity, type FormRow, type FromPanel, type NodePath, type Scalar } from '../core/base/panelProtocol';

type Post = (m: FromPanel) => void;

/** A stable key for a row, so focus can come back to the same input after a re-render. */
export const pathKey = (p: NodePath): string => JSON.stringify(p);

/**
 * The verifier form. Inputs commit on change (blur, Enter, a toggle), never per keystroke: each
 * commit is one undoable edit in the file, and the file's new state comes back as a re-render.
 */
export function renderForm(rows: readonly FormRow[], task: string, post: Post, readOnly = false): HTMLElement {
  const form = el('div', readOnly ? 'form read-only' : 'form');
  form.setAttribute('role', 'group');
  form.setAttribute('aria-label', 'Verifier');
  if (rows.length === 0) form.append(el('p', 'muted', 'This task takes its verifier from `defaults`: edit it there.'));
  for (const row of rows) {
    const line = el('div', `row row-${row.type}`);
    line.style.paddingLeft = `${row.depth * 14}px`;
    if (row.type === 'heading') {
      const label = el('span', 'heading', row.label);
      if (row.doc) label.title = row.doc;
      line.append(label);
      if (row.removable && !readOnly)
        line.append(
          button(
            `Remove ${row.label}`,
            'trash',
            () => post({ type: 'removeItem', task, path: row.path, shown: rowIdentity(row) }),
            { iconOnly: true },
          ),
        );
    } else if (row.type === 'field') {
      const id = `f-${pathKey(row.path)}`;
      const label = el('label', 'label', row.label);
      label.htmlFor = id;
      if (row.doc) label.title = row.doc;
      const input = inputFor(row, (value) => {
        if (value !== row.value) post({ type: 'edit', task, path: row.path, old: row.value, value });
      });
      input.id = id;
      input.dataset.path = pathKey(row.path);
      input.disabled = readOnly;
      line.append(label, input);
      if (row.removable && !readOnly)
        line.append(
          button(
            `Remove ${row.label}`,
            'trash',
            () => post({ type: 'removeItem', task, path: row.path, shown: rowIdentity(row) }),
            { iconOnly: true },
          ),
        );
    } else if (!readOnly) {
      line.append(addControl(row, task, post));
    }
    form.append(line);
  }
  return form;
}

function inputFor(
  row: FormRow & { type: 'field' },
  commit: (v: Scalar) => void,
): HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement {
  const text = row.value === null ? '' : String(row.value);
  switch (row.input) {
    case 'boolean': {
      const box = el('input');
      box.type = 'checkbox';
      box.checked = row.value === true;
      box.addEventListener('change', () => commit(box.checked));
      return box;
    }
    case 'enum': {
      const select = el('select');
      const options = row.options ?? [];
      for (const o of options.includes(text) ? options : [text, ...options])
        select.append(new Option(o, o, false, o === text));
      select.addEventListener('change', () => commit(select.value));
      return select;
    }
    case 'number': {
      const input = el('input');
      input.type = 'number';
      input.step = 'any';
      input.value = text;
      input.addEventListener('change', () => {
        const n = Number(input.value);
        if (input.value.trim() !== '' && Number.isFinite(n)) commit(n);
      });
      return input;
    }
    case 'multiline': {
      const area = el('textarea');
      area.value = text;
      area.rows = Math.min(12, Math.max(2, text.split('\n').length));
      area.addEventListener('change', () => commit(area.value));
      // Ctrl+Enter commits without leaving the field, as in VS Code's own inputs.
      area.addEventListener('keydown', (e) => {
        if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) commit(area.value);
      });
      return area;
    }
    default: {
      const input = el('input');
      input.type = 'text';
      input.value = text;
      input.spellcheck = false;
      // A number written as text (an answer `42`) stays a number when the new text is one.
      input.addEventListener('change', () =>
        commit(
          typeof row.value === 'number' && /^-?\d+(\.\d+)?$/.test(input.value.trim())
            ? Number(input.value)
            : input.value,
        ),
      );
      return input;
    }
  }
}

function addControl(row: FormRow & { type: 'add' }, task: string, post: Post): HTMLElement {
  const box = el('div', 'add');
  if (row.options.length === 0) {
    box.append(button(row.label, 'add', () => post({ type: 'addItem', task, path: row.path, item: '' })));
    return box;
  }
  // A text box with the known choices as suggestions: 116 instruction ids are too many for a
  // plain drop-down, and typing part of one narrows the list.
  const input = el('input');
  input.type = 'text';
  input.placeholder = row.label;
  input.setAttribute('aria-label', row.label);
  const listId = `list-${pathKey(row.path)}`;
  const list = el('datalist');
  list.id = listId;
  for (const o of row.options) list.append(new Option(o, o));
  input.setAttribute('list', listId);
  input.dataset.path = `add:${pathKey(row.path)}`;
  const add = (): void => {
    const choice = input.value.trim();
    if (row.options.includes(choice)) post({ type: 'addItem', task, path: row.path, item: choice });
    else input.setCustomValidity(choice ? `unknown: ${choice}` : 'choose one');
    input.reportValidity();
  };
  input.addEventListener('input', () => input.setCustomValidity(''));
  input.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') add();
  });
  box.append(input, list, button('Add', 'add', add));
  return box;
}
