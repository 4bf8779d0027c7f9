/**
 * The sample dashboard synthesized on a worker thread: loading aws-cdk-lib and synthesizing take 1 to 2 s
 * of CPU, which on the main thread would hold up what `npm start` sets up at the same time (the bundle,
 * the tables, the log). The worker loads the TypeScript sources through tsx (synthesis-worker.mjs).
 */
import { Worker } from 'node:worker_threads';
import type { SampleDashboard } from './sample-dashboard.js';

export function synthesizeOnWorkerThread(consumerName: string): Promise<SampleDashboard> {
  const worker = new Worker(new URL('./synthesis-worker.mjs', import.meta.url), {
    workerData: { consumerName },
  });
  return new Promise<SampleDashboard>((resolve, reject) => {
    worker.once('message', (dashboard: SampleDashboard) => resolve(dashboard));
    worker.once('error', reject);
    worker.once('exit', (code) =>
      reject(new Error(`the dashboard's synthesis ended with exit code ${code}`)),
    );
  });
}
