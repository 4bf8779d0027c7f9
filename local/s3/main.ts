/**
 * `npx tsx local/s3/main.ts --dir DIR [--bucket NAME] [--port N]`: serves a folder (the emulator's
 * on-failure folder, say) as an S3 bucket on loopback until Ctrl-C, for `msk-inbox failed-batches
 * --bucket NAME --s3-endpoint URL` (docs/local.md#a-folder-as-an-s3-bucket).
 */
import { existsSync } from 'node:fs';
import { nonNegativeIntegerFlag, parseFlags } from '../../operator/cli/parse-flags.js';
import { runCli } from '../../operator/cli/run-cli.js';
import { UserError } from '../../operator/cli/user-error.js';
import { startFolderBucketServer } from './folder-bucket-server.js';

const USAGE =
  'usage: npx tsx local/s3/main.ts --dir DIR [--bucket NAME (default: failed-batches)] [--port N (default: a free one)]';

runCli({
  name: 'local/s3/main.ts',
  async run(argv) {
    const values = parseFlags(
      argv,
      {
        dir: { type: 'string' },
        bucket: { type: 'string' },
        port: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      USAGE,
    );
    if (values.help) {
      console.log(USAGE);
      return 0;
    }
    const dir = values.dir;
    if (typeof dir !== 'string') throw new UserError(`which folder? pass --dir DIR (${USAGE})`);
    if (!existsSync(dir)) throw new UserError(`--dir ${dir}: no such folder`);
    const bucket = typeof values.bucket === 'string' ? values.bucket : 'failed-batches';
    const port = nonNegativeIntegerFlag('port', values.port as string | undefined, 0);
    if (port > 65_535) throw new UserError(`--port ${port}: a port is 0 to 65535`);
    const server = await startFolderBucketServer({ root: dir, bucket, port });
    console.log(`serving ${dir} as bucket ${bucket} at ${server.endpoint} (Ctrl-C stops it)`);
    console.log(
      `  npx msk-inbox failed-batches list --bucket ${bucket} --s3-endpoint ${server.endpoint} ...`,
    );
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await server.close();
    return 0;
  },
});
