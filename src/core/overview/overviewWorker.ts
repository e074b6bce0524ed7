// Worker entry of the dataset overview's long reads (bundled on its own as out/overviewWorker.js,
// started by the extension host): a run log read and sent back in batches (runLogIndex.ts), a
// run log compacted, or the duplicate and contamination search of a dataset (findings.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { findFindings, FINDINGS_JOB, type FindingsJob } from './prompts/findings';
import { COMPACT_JOB, postRunLog, RUN_LOG_JOB } from './runlog/runLogIndex';
import { compactRunLog } from './runlog/runLog';

const data = workerData as
  | { kind: typeof RUN_LOG_JOB; cacheDir: string }
  | { kind: typeof COMPACT_JOB; cacheDir: string }
  | { kind: typeof FINDINGS_JOB; job: FindingsJob };
const port = parentPort;
if (port) {
  if (data.kind === RUN_LOG_JOB) postRunLog(data.cacheDir, port);
  else if (data.kind === COMPACT_JOB) compactRunLog(data.cacheDir);
  else void findFindings(data.job).then((f) => port.postMessage(f));
}
