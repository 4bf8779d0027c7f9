/** Runs in a worker thread (synthesis-thread.ts, through synthesis-worker.mjs): synthesizes the sample dashboard and posts it back. */
import { parentPort, workerData } from 'node:worker_threads';
import { synthesizeSampleDashboard } from './sample-dashboard.js';

const { consumerName } = workerData as { consumerName: string };
parentPort?.postMessage(await synthesizeSampleDashboard(consumerName));
