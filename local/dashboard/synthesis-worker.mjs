// A worker thread's entry (synthesis-thread.ts): Node runs JavaScript only, so the TypeScript that
// synthesizes the dashboard is loaded through tsx's API, as `npm start` itself runs through tsx.
import { tsImport } from 'tsx/esm/api';

await tsImport('./synthesis-worker.ts', import.meta.url);
