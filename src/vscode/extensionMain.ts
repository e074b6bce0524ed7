// The extension's second stage (out/extensionMain.js): every feature, loaded by the first stage
// (extension.ts) once a task file, a dataset or a vtask command or view needs it.
// First: it configures zod before other modules build their schemas.
import './zodSetup';
import { errorMessage } from '../core/base/errorMessage';
import * as vscode from 'vscode';
import { version } from '../core/version';
import type { VtaskApi } from './api';
import { AuditFindings } from './audit';
import { CodeActionProvider } from './codeActions';
import { registerCommands } from './commands';
import { CompletionProvider } from './completion';
import { Diagnostics } from './diagnostics';
import { HoverProvider, RowHoverProvider } from './hover';
import { SymbolProvider } from './symbols';
import { TaskPanel } from './taskPanel';
import { ResultStore } from './results';
import { TaskRunner } from './taskRunner';
import { ModelPicker } from './modelPicker';
import { backgroundFailure, backgroundFailureStatus, disposeBackgroundFailures } from './backgroundFailure';
import { CaseTests } from './testing';
import { CodeLensProvider } from './codeLens';
import { Decorations } from './decorations';
import { ROWS_SELECTOR, TaskDocuments, VTASK_SELECTOR } from './taskDocuments';
import { isolationWiring } from './isolation';
import { trustWiring } from './trust';
import { DatasetEditorProvider } from './datasetEditor';
import { Workbenches } from './workbench';
import { overviewWorkerScript, registerOverview } from './overview';

/** Wires the services and features together; every disposable goes to the context. */
export function activateFull(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): VtaskApi {
  try {
    // First: diagnostics and runs read what the user allows from the start.
    context.subscriptions.push(...trustWiring(log));
    const documents = new TaskDocuments();
    const diagnostics = new Diagnostics(documents, log);
    const results = new ResultStore();
    const models = new ModelPicker(context);
    const runner = new TaskRunner(documents, results, log, models, overviewWorkerScript(context.extensionUri));
    const tests = new CaseTests(documents, results);
    const lenses = new CodeLensProvider(documents, results, runner);
    const decorations = new Decorations(context.extensionUri, documents, results);
    const audit = new AuditFindings(documents);
    const restore = (d: vscode.TextDocument): void =>
      void runner
        .restore(d)
        .catch((e: unknown) =>
          backgroundFailure(log, `restoring the results of ${vscode.workspace.asRelativePath(d.uri)}`, e),
        );
    const datasets = new DatasetEditorProvider({ extensionUri: context.extensionUri, documents, results, runner, log });
    context.subscriptions.push(
      documents,
      diagnostics,
      results,
      models,
      runner,
      tests,
      lenses,
      decorations,
      audit,
      { dispose: disposeBackgroundFailures },
      vscode.languages.registerCodeLensProvider(VTASK_SELECTOR, lenses),
      // Dataset rows (JSONL) get the lenses, decorations and panel of tasks.
      vscode.languages.registerCodeLensProvider(ROWS_SELECTOR, lenses),
      vscode.languages.registerHoverProvider(ROWS_SELECTOR, new RowHoverProvider(documents, decorations)),
      // Results survive reopening a file: restored from the sample cache, in the background;
      // the rows of a large dataset as they come into view.
      vscode.workspace.onDidOpenTextDocument(restore),
      documents.onDidChangeWindow(restore),
      vscode.languages.registerCompletionItemProvider(VTASK_SELECTOR, new CompletionProvider(documents), ':', ' ', '-'),
      vscode.languages.registerHoverProvider(VTASK_SELECTOR, new HoverProvider(documents)),
      vscode.languages.registerDocumentSymbolProvider(VTASK_SELECTOR, new SymbolProvider(documents), {
        label: 'vtask',
      }),
      vscode.languages.registerCodeActionsProvider(VTASK_SELECTOR, new CodeActionProvider(documents), {
        providedCodeActionKinds: CodeActionProvider.kinds,
      }),
      vscode.languages.registerCodeActionsProvider(VTASK_SELECTOR, audit, {
        providedCodeActionKinds: AuditFindings.kinds,
      }),
      ...registerCommands({
        extensionUri: context.extensionUri,
        documents,
        diagnostics,
        audit,
        log,
        runner,
        tests,
        results,
        models,
      }),
      { dispose: () => TaskPanel.current?.dispose() },
      vscode.window.registerWebviewPanelSerializer(TaskPanel.viewType, {
        deserializeWebviewPanel: async (panel, state) => {
          TaskPanel.revive(panel, context.extensionUri, { documents, results, runner, log }, state);
        },
      }),
    );
    const workbenches = new Workbenches({ extensionUri: context.extensionUri, log, documents, runner });
    context.subscriptions.push(...isolationWiring(log), ...datasets.register(), ...workbenches.register());
    const overview = registerOverview({ extensionUri: context.extensionUri, documents, results, log });
    context.subscriptions.push(...overview.disposables);
    // Runs recorded by `vtask run` (any model) show on their tasks beside this window's.
    context.subscriptions.push(decorations.useRunLog(overview.runLogs));
    // Opening a JSONL file activates the extension after it opened: its results are restored here.
    for (const d of vscode.workspace.textDocuments) restore(d);
    log.info(`vtask ${version} activated`);
    return {
      version,
      parse: (doc) => documents.get(doc),
      lastParseMs: (doc) => documents.lastParseMs(doc),
      results: (uri, taskId) => results.get(uri, taskId),
      restore: (doc) => runner.restore(doc),
      decorations: (doc) => decorations.compute(doc.uri, documents.get(doc)),
      caseStates: (uri, taskId) => tests.statesOf(uri, taskId),
      caseMessages: (uri, taskId) => tests.messagesOf(uri, taskId),
      testFiles: () => tests.files(),
      isRunning: (uri, taskId) => runner.isRunning(uri, taskId),
      failureStatus: () => backgroundFailureStatus(),
      logUri: context.logUri,
      datasetView: (uri) => datasets.viewOf(uri),
      workbench: (uri) => workbenches.of(uri),
      overview: overview.overview,
    };
  } catch (e) {
    // Activation failures are shown, then rethrown so VS Code marks the extension as failed.
    log.error('activation failed', e);
    void vscode.window.showErrorMessage(`vtask failed to start: ${errorMessage(e)}`);
    throw e;
  }
}
