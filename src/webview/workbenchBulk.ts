// The workbench page's part of the actions on a selection: the confirmation of a run with its
// estimate (sample budget, tokens, cost) and a sample count to change it, the progress of an
// audit or export with Cancel, and next/previous through the tasks opened in the task panel.
// The host does the work and says what to show; every text is set as text.
import { button, el, icon } from './dom';
import type { FromWorkbench, ToWorkbench } from '../core/base/workbenchProtocol';

type Message<T extends ToWorkbench['type']> = Extract<ToWorkbench, { type: T }>;

/** Wait after a sample count is typed before asking for the estimate again. */
const RETYPE_MS = 300;

export class BulkBar {
  /** Above the table: the run's confirmation, then a bulk action's progress, then the panel's stepping. */
  readonly element = el('div', 'bulk');
  private readonly dialog = el('div', 'run-confirm');
  private readonly progress = el('div', 'bulk-progress');
  private readonly steps = el('div', 'stepping');

  constructor(private readonly post: (m: FromWorkbench) => void) {
    this.dialog.setAttribute('role', 'dialog');
    this.dialog.setAttribute('aria-label', 'Run the selection');
    this.progress.setAttribute('role', 'status');
    this.element.append(this.dialog, this.progress, this.steps);
  }

  /** Shows what a run would cost and asks; Run posts it confirmed, with the sample count shown. */
  confirmRun(msg: Message<'confirmRun'>): void {
    const text = el('p', 'estimate', msg.text);
    const samples = el('input', 'samples');
    samples.type = 'number';
    samples.min = '1';
    samples.max = '10000';
    samples.placeholder = "each task's own";
    samples.value = msg.samples === undefined ? '' : String(msg.samples);
    samples.setAttribute('aria-label', 'Samples per task');
    const count = (): number | undefined => {
      const n = Number(samples.value);
      return samples.value && Number.isInteger(n) && n >= 1 && n <= 10_000 ? n : undefined;
    };
    let timer: ReturnType<typeof setTimeout> | undefined;
    samples.addEventListener('input', () => {
      clearTimeout(timer);
      // Another sample count: the host says the estimate again.
      timer = setTimeout(() => this.post({ type: 'run', rows: msg.rows, ...withSamples(count()) }), RETYPE_MS);
    });
    const label = el('label', undefined, 'Samples per task ');
    label.append(samples);
    const run = button(
      'Run',
      'play',
      () => {
        clearTimeout(timer);
        this.dialog.replaceChildren();
        this.post({ type: 'run', rows: msg.rows, ...withSamples(count()), confirmed: true });
      },
      { className: 'run-confirmed' },
    );
    const cancel = button(
      'Cancel',
      'close',
      () => {
        clearTimeout(timer);
        this.dialog.replaceChildren();
      },
      { className: 'run-cancel' },
    );
    this.dialog.replaceChildren(text, el('div', 'actions'));
    this.dialog.lastElementChild?.append(label, run, cancel);
    run.focus();
  }

  /** A bulk action under way: how far it is, and Cancel. */
  showProgress(msg: Message<'bulk'>): void {
    const bar = el('progress');
    bar.max = Math.max(1, msg.total);
    bar.value = msg.done;
    const spinner = icon('loading');
    spinner.classList.add('codicon-modifier-spin');
    this.progress.replaceChildren(
      spinner,
      ` ${msg.action === 'audit' ? 'Auditing' : 'Exporting'}: ${msg.done.toLocaleString('en-US')} of ${msg.total.toLocaleString('en-US')} tasks `,
      bar,
      button('Cancel', 'debug-stop', () => this.post({ type: 'cancel' }), { className: 'bulk-cancel' }),
    );
  }

  /** The action ended: its progress goes (what it did is the page's notice). */
  done(): void {
    this.progress.replaceChildren();
  }

  /** Task `at` of `count` is in the panel: previous and next through them. */
  stepping(msg: Message<'stepping'>): void {
    if (msg.count < 2) {
      this.steps.replaceChildren();
      return;
    }
    const prev = button('Previous task', 'arrow-left', () => this.post({ type: 'step', by: -1 }), {
      className: 'step-previous',
    });
    const next = button('Next task', 'arrow-right', () => this.post({ type: 'step', by: 1 }), {
      className: 'step-next',
    });
    prev.disabled = msg.at === 0;
    next.disabled = msg.at >= msg.count - 1;
    this.steps.replaceChildren(
      `In the task panel: ${msg.id} (${(msg.at + 1).toLocaleString('en-US')} of ${msg.count.toLocaleString('en-US')}) `,
      prev,
      next,
    );
  }
}

function withSamples(n: number | undefined): { samples?: number } {
  return n === undefined ? {} : { samples: n };
}
