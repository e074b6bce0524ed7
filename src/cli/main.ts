import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { runSummaryWorker, SUMMARY_WORKER } from '../core/overview/dataset/summaryWorkers';
import { PARSE_WORKER, RESOLVE_WORKER, runParseWorker, runResolveWorker } from '../core/taskfile/parallel';
import { runCli, stopsGracefully } from './dispatch';

/** The first Ctrl-C or SIGTERM aborts `stop` (samples taken so far are kept); a second one exits at once. */
function stopCleanlyOnSignals(stop: AbortController): void {
  process.on('SIGINT', () => {
    if (stop.signal.aborted) process.exit(130);
    process.stderr.write('\nstopping... (Ctrl-C again to quit at once)\n');
    stop.abort();
  });
  // A service manager's stop: end as on Ctrl-C, so the samples taken are saved; a second one quits.
  process.on('SIGTERM', () => {
    if (stop.signal.aborted) process.exit(143);
    stop.abort();
  });
}

/**
 * The reader of the output went away (`vtask stats --json | head`): end as a Unix tool does on
 * SIGPIPE (status 141), without Node's stack trace for an unhandled write error. A command with
 * something to finish (a run's samples) stops as on Ctrl-C, and its later writes go nowhere.
 */
function endWhenOutputIsClosed(stop: AbortController, graceful: boolean): void {
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') throw e;
    process.exitCode = 141;
    if (!graceful) process.exit(141);
    stop.abort();
  });
}

// The same bundle serves as the CLI and as its parse and summary workers (see
// core/taskfile/parallel.ts and core/overview/summaryWorkers.ts).
const data = workerData as { kind?: string; texts: string[] } | null;
if (!isMainThread && data?.kind === PARSE_WORKER) {
  runParseWorker(data, (r) => parentPort?.postMessage(r));
} else if (!isMainThread && data?.kind === RESOLVE_WORKER && parentPort) {
  runResolveWorker(parentPort);
} else if (!isMainThread && data?.kind === SUMMARY_WORKER && parentPort) {
  runSummaryWorker(parentPort);
} else {
  // The process entry point: everything testable lives in runCli.
  const stop = new AbortController();
  // A handler in JavaScript runs only once the thread is free: during a long parse or read a
  // stop would wait for it. Commands with nothing to finish keep the system's own handling, so
  // Ctrl-C and SIGTERM end them at once whatever they are doing. Those that have something to
  // finish take over the signals once their synchronous start (reading and checking the task
  // files) is over and they first wait for I/O: until then there is nothing to finish either.
  const graceful = stopsGracefully(process.argv[2]);
  if (graceful) setImmediate(() => stopCleanlyOnSignals(stop));
  endWhenOutputIsClosed(stop, graceful);
  void runCli(
    process.argv.slice(2),
    { stdout: process.stdout, stderr: process.stderr, cwd: process.cwd() },
    stop.signal,
  ).then((code) => {
    if (process.exitCode !== 141) process.exitCode = code;
  });
}
