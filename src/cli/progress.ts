/**
 * Progress of a run on stderr: a bar redrawn in place on a terminal, and plain lines (one per
 * finished task) when stderr is a file or a pipe, so logs stay readable.
 */
export class ProgressReporter {
  private readonly started = Date.now();
  private readonly perTask = new Map<string, { done: number; total: number }>();
  private tasksDone = 0;
  private lastDraw = 0;

  constructor(
    private readonly out: { write(s: string): unknown; isTTY?: boolean },
    private readonly tasks: number,
    private readonly samples: number,
  ) {}

  update(task: string, done: number, total: number): void {
    this.perTask.set(task, { done, total });
    if (!this.out.isTTY) return;
    const now = Date.now();
    if (now - this.lastDraw < 80) return;
    this.lastDraw = now;
    this.draw();
  }

  /** A request waiting to be retried: always shown, so that a slow server never looks like a hang. */
  note(line: string): void {
    if (this.out.isTTY) {
      this.out.write(`\r\x1b[2K${line}\n`);
      this.draw();
    } else this.out.write(line + '\n');
  }

  taskDone(line: string): void {
    this.tasksDone++;
    if (this.out.isTTY) {
      this.out.write(`\r\x1b[2K${line}\n`);
      this.draw();
    } else this.out.write(line + '\n');
  }

  private draw(): void {
    let done = 0;
    for (const t of this.perTask.values()) done += t.done;
    const secs = (Date.now() - this.started) / 1000;
    const rate = secs > 0 ? done / secs : 0;
    const left = this.samples - done;
    const eta = rate > 0 && left > 0 ? `${Math.ceil(left / rate)}s` : '-';
    const width = 24;
    const fill = this.samples ? Math.round((width * done) / this.samples) : width;
    const bar = '█'.repeat(fill) + '░'.repeat(Math.max(0, width - fill));
    this.out.write(
      `\r\x1b[2K${bar} tasks ${this.tasksDone}/${this.tasks} · samples ${done}/${this.samples} · ${rate.toFixed(1)}/s · ETA ${eta}`,
    );
  }

  finish(): void {
    if (this.out.isTTY) this.out.write('\r\x1b[2K');
  }
}
