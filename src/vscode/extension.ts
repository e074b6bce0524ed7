// The extension's first stage (out/extension.js): small, so that the JSONL files of other projects,
// which activate it too, cost little. It loads the second stage (extensionMain.ts: every feature)
// as soon as something needs it: a task file, JSONL rows in a dataset format, a vtask table or
// panel, the vtask view, a vtask command or the API. Until then it only watches for those.
import { createRequire } from 'node:module';
import path from 'node:path';
import * as vscode from 'vscode';
import { DETECT_ROWS, detectFormat } from '../core/datasets/detectFormat';
import { rowFileType } from '../core/datasets/rowFiles';
import { version } from '../core/version';
import type { VtaskApi } from './api';
import type { activateFull } from './extensionMain';
import { showWalkthroughOnce } from './walkthrough';

/** The vtask view (datasetTree.ts names it too; importing it would load the second stage). */
const VIEW_ID = 'vtask.tasks';
/** The webview types of the vtask table (a custom editor) and of the task panel. */
const VTASK_VIEW_TYPES = ['vtask.dataset', 'vtask.task'];

interface SecondStage {
  activateFull: typeof activateFull;
}

function isSecondStage(m: unknown): m is SecondStage {
  return typeof m === 'object' && m !== null && 'activateFull' in m && typeof m.activateFull === 'function';
}

/** A JSONL document whose first rows are in a dataset format: the second stage shows them as tasks. */
function isDatasetRows(doc: vscode.TextDocument): boolean {
  if (rowFileType(doc.uri.path) !== 'jsonl') return false;
  for (let l = 0, seen = 0; l < doc.lineCount && seen < DETECT_ROWS; l++) {
    const text = doc.lineAt(l).text;
    if (!text.trim()) continue;
    seen++;
    let row: unknown;
    try {
      row = JSON.parse(text);
    } catch {
      continue;
    }
    if (typeof row === 'object' && row !== null && !Array.isArray(row) && detectFormat({ ...row }) !== undefined)
      return true;
  }
  return false;
}

function needsSecondStage(doc: vscode.TextDocument): boolean {
  return doc.languageId === 'vtask' || isDatasetRows(doc);
}

/** A tab of the vtask table or task panel (restored, or opening) waits for the second stage. */
function vtaskTab(): boolean {
  return vscode.window.tabGroups.all.some((g) =>
    g.tabs.some((t) => {
      const type =
        t.input instanceof vscode.TabInputCustom || t.input instanceof vscode.TabInputWebview
          ? t.input.viewType
          : undefined;
      // A webview tab's type carries a prefix of VS Code's own (`mainThreadWebview-vtask.task`).
      return type !== undefined && VTASK_VIEW_TYPES.some((v) => type === v || type.endsWith(`-${v}`));
    }),
  );
}

/** The commands the manifest contributes: each must answer even before the second stage loads. */
function contributedCommands(context: vscode.ExtensionContext): string[] {
  const pkg: unknown = context.extension.packageJSON;
  const list =
    typeof pkg === 'object' && pkg !== null && 'contributes' in pkg && typeof pkg.contributes === 'object'
      ? pkg.contributes !== null && 'commands' in pkg.contributes
        ? pkg.contributes.commands
        : undefined
      : undefined;
  if (!Array.isArray(list)) return [];
  return list.flatMap((c: unknown) =>
    typeof c === 'object' && c !== null && 'command' in c && typeof c.command === 'string' ? [c.command] : [],
  );
}

/** What the first stage holds until it hands over: the watchers, then the second stage's API. */
class Stages implements vscode.Disposable {
  private full: VtaskApi | undefined;
  private failure: unknown;
  private watchers: vscode.Disposable[] = [];

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  /** The second stage's API, loading it first if need be. */
  load(why: string): VtaskApi {
    if (this.full) return this.full;
    if (this.failure !== undefined) throw this.failure;
    // Its own registrations take the place of the stand-ins: those go first.
    this.dispose();
    this.log.info(`loading the rest of vtask: ${why}`);
    try {
      const file = path.join(__dirname, 'extensionMain.js');
      const stage: unknown = createRequire(__filename)(file);
      if (!isSecondStage(stage)) throw new Error(`${file} is not the second stage of vtask`);
      this.full = stage.activateFull(this.context, this.log);
      return this.full;
    } catch (e) {
      this.failure = e;
      throw e;
    }
  }

  /** Loads the second stage now if an open document or tab needs it; else waits for one that does. */
  start(): void {
    const doc = vscode.workspace.textDocuments.find(needsSecondStage);
    if (doc) return void this.load(`${vscode.workspace.asRelativePath(doc.uri)} is open`);
    if (vtaskTab()) return void this.load('a vtask table or panel is open');
    // Loaded from a stand-in's own callback or an event, it runs a moment later: a failure is
    // shown by the second stage itself, and the log says it.
    const soon = (why: string): void =>
      void setImmediate(() => {
        try {
          this.load(why);
        } catch (e) {
          this.log.error('the rest of vtask did not load', e);
        }
      });
    this.watchers.push(
      vscode.workspace.onDidOpenTextDocument((d) => {
        if (needsSecondStage(d)) soon(`${vscode.workspace.asRelativePath(d.uri)} was opened`);
      }),
      // Rows typed or pasted into an empty JSONL file.
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.contentChanges.some((c) => c.range.start.line < DETECT_ROWS) && isDatasetRows(e.document))
          soon(`${vscode.workspace.asRelativePath(e.document.uri)} has dataset rows`);
      }),
      vscode.window.tabGroups.onDidChangeTabs(() => {
        if (vtaskTab()) soon('a vtask table or panel is opening');
      }),
      // The view asks for its items once it shows: the second stage's tree takes its place.
      vscode.window.registerTreeDataProvider<never>(VIEW_ID, {
        getTreeItem: (item) => item,
        getChildren: () => {
          soon('the vtask view is showing');
          return [];
        },
      }),
      ...contributedCommands(this.context).map((id) =>
        vscode.commands.registerCommand(id, (...args: unknown[]) => {
          this.load(`the command ${id}`);
          return vscode.commands.executeCommand(id, ...args);
        }),
      ),
    );
  }

  /** The API, every member of which loads the second stage. */
  api(): VtaskApi {
    const full = (): VtaskApi => this.load('the API was used');
    return {
      version,
      logUri: this.context.logUri,
      get overview() {
        return full().overview;
      },
      parse: (doc) => full().parse(doc),
      lastParseMs: (doc) => full().lastParseMs(doc),
      results: (uri, taskId) => full().results(uri, taskId),
      restore: (doc) => full().restore(doc),
      decorations: (doc) => full().decorations(doc),
      caseStates: (uri, taskId) => full().caseStates(uri, taskId),
      caseMessages: (uri, taskId) => full().caseMessages(uri, taskId),
      testFiles: () => full().testFiles(),
      isRunning: (uri, taskId) => full().isRunning(uri, taskId),
      failureStatus: () => full().failureStatus(),
      datasetView: (uri) => full().datasetView(uri),
      workbench: (uri) => full().workbench(uri),
    };
  }

  dispose(): void {
    for (const w of this.watchers.splice(0)) w.dispose();
  }
}

export function activate(context: vscode.ExtensionContext): VtaskApi {
  const log = vscode.window.createOutputChannel('vtask', { log: true });
  const stages = new Stages(context, log);
  context.subscriptions.push(log, stages);
  log.info(`vtask ${version}: first stage active`);
  showWalkthroughOnce(context);
  // Extension tests drive every feature, some through commands no menu lists: all of it at once.
  if (context.extensionMode === vscode.ExtensionMode.Test) stages.load('extension tests');
  else stages.start();
  return stages.api();
}

export function deactivate(): void {
  // Everything is disposed through context.subscriptions.
}
