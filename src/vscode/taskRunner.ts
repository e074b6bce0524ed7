import * as vscode from 'vscode';
import { refusedInUntrusted } from '../core/run/agentSamples';
import { sampleTasks, type SampleResult, type TaskRunResult } from '../core/run/sampleTasks';
import { createProvider } from '../core/sampling';
import { SampleCache } from '../core/sampling/cache';
import type { ModelProfile, Provider } from '../core/sampling/types';
import { runnableTasks, type TaskSpec } from '../core/taskfile/resolve';
import type { TaskFile } from '../core/taskfile/parse';
import { appendRunRecordsAsync, modelLabel, runRecordsOf } from '../core/overview/runlog/runLog';
import { compactRunLogInWorker } from '../core/overview/runlog/runLogIndex';
import { fallbackProfile } from '../core/sampling/localModels';
import { LanguageModelProvider, LM_PREFIX } from './lmProvider';
import type { ModelPicker } from './modelPicker';
import { profileForTask } from './models';
import type { ResultStore } from './results';
import { resultKeys } from './results';
import { cacheDirFor, settingsFor } from './settings';
import { isTaskDocument, type TaskDocuments } from './taskDocuments';

/** A task as the editor samples it: the temperature setting, when set, overrides the task's own. */
export function withEditorSettings(t: TaskSpec, uri?: vscode.Uri): TaskSpec {
  const { temperature } = settingsFor(uri);
  return temperature !== undefined ? { ...t, sampling: { ...t.sampling, temperature } } : t;
}

/** What a run from the task panel adds to a plain run. */
export interface RunExtras {
  readonly fresh?: boolean;
  readonly samples?: number;
  /** Sample with this model instead of each task's own: a profile name, or a profile itself. */
  readonly model?: { readonly name: string; readonly profile?: ModelProfile };
  onSample?(task: string, sample: SampleResult): void;
}

/**
 * Samples tasks from the editor: the same core runner as `vtask run`, the same cache folder
 * (so the CLI and the editor share samples), progress that can be cancelled, results into the
 * store that lenses and decorations read.
 */
export class TaskRunner implements vscode.Disposable {
  private readonly caches = new Map<string, SampleCache>();
  private readonly providers = new Map<string, Provider>();
  private readonly running = new Map<string, AbortController>();
  private readonly disposed = new AbortController();
  private readonly emitter = new vscode.EventEmitter<void>();
  /** Fires when a run starts or ends (lenses show progress and Cancel). */
  readonly onDidChangeRunning = this.emitter.event;

  constructor(
    private readonly documents: TaskDocuments,
    private readonly results: ResultStore,
    private readonly log: vscode.LogOutputChannel,
    private readonly models: ModelPicker,
    /** The bundled out/overviewWorker.js, where the run log is compacted; in this thread without it. */
    private readonly worker?: string,
  ) {
    // Cancel Sampling is offered only while something runs.
    this.emitter.event(
      () => void vscode.commands.executeCommand('setContext', 'vtask.sampling', this.running.size > 0),
    );
  }

  /** Whether anything is being sampled (the `vtask.sampling` context key says the same). */
  get busy(): boolean {
    return this.running.size > 0;
  }

  isRunning(uri: vscode.Uri, taskId: string): boolean {
    return this.running.has(`${uri.toString()}#${taskId}`) || this.running.has(`${uri.toString()}#*`);
  }

  /**
   * Cancels the runs of a file, or those that sample a task (its own and a Run all); `exact`
   * cancels only the task's own run (the panel's Cancel leaves a Run all going).
   */
  cancel(uri: vscode.Uri, taskId?: string, exact = false): void {
    const prefix = `${uri.toString()}#`;
    for (const [key, c] of this.running) {
      if (!key.startsWith(prefix)) continue;
      const id = key.slice(prefix.length);
      if (taskId === undefined || id === taskId || (!exact && id === '*')) c.abort();
    }
  }

  cancelAll(): void {
    for (const c of this.running.values()) c.abort();
  }

  /**
   * Samples and verifies the given tasks (all when `taskIds` is undefined). `fresh` asks the
   * model again instead of reading the cache; `samples` overrides N; `onSample` sees each new
   * sample, verified, as it arrives.
   */
  async run(doc: vscode.TextDocument, taskIds?: readonly string[], options: RunExtras = {}): Promise<TaskRunResult[]> {
    const file = this.documents.get(doc);
    const pick = options.model;
    const tasks = runnableTasks(file)
      .tasks.filter((t) => !taskIds || taskIds.includes(t.id))
      .map((t) => withEditorSettings(t, doc.uri))
      .map((t) => (pick && !pick.profile ? { ...t, sampling: { ...t.sampling, model: pick.name } } : t));
    if (tasks.length === 0) return [];
    const key = `${doc.uri.toString()}#${taskIds?.length === 1 ? taskIds[0] : '*'}${pick ? `@${pick.name}` : ''}`;
    const abort = new AbortController();
    const settings = settingsFor(doc.uri);
    const cache = this.cacheFor(doc.uri);
    const hashes = resultKeys(file);
    const samples = options.samples ?? settings.samples;
    // Running from here on: whatever fails below (secrets, the fallback model) ends the run in
    // `finally`, so no lens is left saying "sampling…".
    this.running.set(key, abort);
    this.emitter.fire();
    try {
      await this.models.loadSecrets();
      // Tasks with no model configured sample a local server, else the built-in demo model.
      const unconfigured = tasks.filter((t) => {
        if (pick?.profile) return false;
        try {
          profileForTask(file, t, doc.uri);
          return false;
        } catch {
          return true;
        }
      });
      const fallback = unconfigured.length ? await fallbackProfile() : undefined;
      if (fallback) {
        this.log.info(fallback.why);
        vscode.window.setStatusBarMessage(`vtask: ${fallback.why}`, 8000);
      }
      return await vscode.window.withProgress(
        {
          location: vscode.ProgressLocation.Notification,
          title: `vtask: sampling ${tasks.length === 1 ? tasks[0]?.id : `${tasks.length} tasks`}`,
          cancellable: true,
        },
        async (progress, token) => {
          token.onCancellationRequested(() => abort.abort());
          const total = tasks.reduce((a, t) => a + (samples ?? t.sampling.samples), 0);
          const seen = new Map<string, number>();
          // The profile each task was sampled with: its label in the results and the run log.
          const used = new Map<string, ModelProfile>();
          const profileFor = (t: TaskSpec): ModelProfile => {
            const p =
              pick?.profile ??
              (fallback && unconfigured.includes(t) ? fallback.profile : profileForTask(file, t, doc.uri));
            used.set(t.id, p);
            return p;
          };
          const done = await sampleTasks(tasks, {
            file: doc.uri.fsPath,
            cache,
            samples,
            // Cancelling stops sampling; samples already taken are still verified in full.
            verifySignal: this.disposed.signal,
            fresh: options.fresh,
            onSample: options.onSample,
            signal: abort.signal,
            trusted: vscode.workspace.isTrusted,
            groupSize: settings.grpoGroupSize,
            concurrency: settings.concurrency,
            profileFor,
            providerFor: (p) => this.providerOf(p),
            onProgress: (p) => {
              const before = seen.get(p.task) ?? 0;
              seen.set(p.task, p.done);
              progress.report({
                increment: (100 * (p.done - before)) / Math.max(1, total),
                message: `${[...seen.values()].reduce((a, b) => a + b, 0)}/${total} samples`,
              });
            },
            onTaskDone: (r) => {
              const p = used.get(r.task.id);
              this.results.setRun(doc.uri, r.task.id, hashes.get(r.task.id)?.run ?? '', r, p && modelLabel(p));
              if (r.error) this.log.warn(`${r.task.id}: ${r.error}`);
              // An agent task asked to run in Restricted Mode: say why nothing happened, and where trust is granted.
              if (r.error === refusedInUntrusted) {
                void vscode.window
                  .showWarningMessage(`vtask: ${r.task.id} was not run: ${r.error}.`, 'Manage Workspace Trust')
                  .then((pick) => {
                    if (pick) void vscode.commands.executeCommand('workbench.trust.manage');
                  });
              }
            },
          });
          await this.logRuns(doc, file, done, samples, (r) => used.get(r.task.id));
          return done;
        },
      );
    } finally {
      this.running.delete(key);
      cache.flush();
      this.emitter.fire();
    }
  }

  /**
   * Shows the results of earlier runs when a file opens: tasks whose samples are all in the
   * cache are verified again (no request is made). Large files are left alone.
   */
  async restore(doc: vscode.TextDocument): Promise<number> {
    if (!isTaskDocument(doc) || doc.uri.scheme !== 'file') return 0;
    const file = this.documents.get(doc);
    const tasks = runnableTasks(file).tasks;
    if (tasks.length === 0 || tasks.length > 1000) return 0;
    const settings = settingsFor(doc.uri);
    const cache = this.cacheFor(doc.uri);
    const hashes = resultKeys(file);
    const done = await sampleTasks(tasks, {
      file: doc.uri.fsPath,
      cache,
      cacheOnly: true,
      samples: settings.samples,
      signal: new AbortController().signal,
      trusted: vscode.workspace.isTrusted,
      groupSize: settings.grpoGroupSize,
      profileFor: (t) => profileForTask(file, t, doc.uri),
      providerFor: () => {
        throw new Error('restoring never samples');
      },
      onTaskDone: (r) =>
        this.results.setRun(
          doc.uri,
          r.task.id,
          hashes.get(r.task.id)?.run ?? '',
          r,
          modelLabel(profileForTask(file, r.task, doc.uri)),
        ),
    });
    return done.length;
  }

  /**
   * Adds the finished runs to the run log of the file's cache folder, the one `vtask stats`
   * reads. Runs of unsaved files are left out: the log names files on disk. The append never
   * blocks this thread, even while another process compacts the log.
   */
  private async logRuns(
    doc: vscode.TextDocument,
    parsed: TaskFile,
    done: readonly TaskRunResult[],
    samples: number | undefined,
    profileOf: (r: TaskRunResult) => ModelProfile | undefined,
  ): Promise<void> {
    if (doc.uri.scheme !== 'file') return;
    const cacheDir = cacheDirFor(doc.uri);
    try {
      const worker = this.worker;
      await appendRunRecordsAsync(
        cacheDir,
        runRecordsOf(done, { cacheDir, file: doc.uri.fsPath, parsed, samples, profileOf }),
        worker ? { compact: (dir) => compactRunLogInWorker(worker, dir) } : {},
      );
    } catch (e) {
      this.log.warn(`the run log was not written (${cacheDir}): ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  /** The model a task of `doc` samples (the selected model, or the task's own), to ask it directly. */
  providerForTask(doc: vscode.TextDocument, task: TaskSpec): { provider: Provider; profile: ModelProfile } {
    const profile = profileForTask(this.documents.get(doc), withEditorSettings(task, doc.uri), doc.uri);
    return { provider: this.providerOf(profile), profile };
  }

  /** One provider per profile, kept: its connection pool and limits are shared by all runs. */
  private providerOf(p: ModelProfile): Provider {
    // The secrets it sends are part of it: a change of vtask.trustedEndpoints gives another provider.
    const id = `${p.name}\0${p.baseUrl}\0${p.model}\0${p.apiKeyEnv ?? ''}\0${JSON.stringify(p.headers ?? {})}`;
    let provider = this.providers.get(id);
    if (!provider) {
      provider = p.baseUrl.startsWith(LM_PREFIX)
        ? new LanguageModelProvider(p.baseUrl, this.log)
        : createProvider(p, { splitThinkTags: false, secrets: this.models.lookup });
      this.providers.set(id, provider);
    }
    return provider;
  }

  /** The sample cache of a file's cache folder, opened once per folder. */
  private cacheFor(uri: vscode.Uri): SampleCache {
    const dir = cacheDirFor(uri);
    let cache = this.caches.get(dir);
    if (!cache) this.caches.set(dir, (cache = SampleCache.open(dir)));
    return cache;
  }

  dispose(): void {
    this.disposed.abort();
    for (const c of this.running.values()) c.abort();
    for (const c of this.caches.values()) c.close();
    this.emitter.dispose();
  }
}
