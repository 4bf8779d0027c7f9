/** The operator CLI's entry (package.json `bin` runs it through bin/msk-inbox.mjs): docs/operate.md. */
import { runCli } from '../operator/cli/run-cli.js';
import { OPERATOR_CLI } from '../operator/operator-main.js';

runCli(OPERATOR_CLI);
