// Worker entry: reads one cache folder's run log and posts its entries back (runLogIndex.ts).
// Bundled on its own (out/runLogWorker.js): the extension host starts it for each reading.
import { parentPort, workerData } from 'node:worker_threads';
import { postRunLog } from './runLogIndex';

postRunLog((workerData as { cacheDir: string }).cacheDir, (rows) => parentPort?.postMessage(rows));
