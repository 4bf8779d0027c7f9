// Runs one command and ends it when the process that started this guard ends, however that process ends.
//
//   node exit-with-parent.mjs COMMAND [ARG...]
//
// The parent holds the write end of this guard's stdin. The kernel closes it when the parent exits for any
// reason (an error, a broken pipe, Ctrl-C, SIGTERM, even SIGKILL, which no handler sees), so end-of-file
// on stdin is the one signal that cannot be missed. Programs that never read their stdin, such as
// DynamoDB Local's JVM, cannot watch for it themselves: this guard does it for them.
//
// The command stays in the parent's process group, so a signal to the whole group (a terminal's Ctrl-C,
// `kill -- -PGID`) reaches it directly too. The command's pid is written on file descriptor 3, one line,
// as soon as it runs.
import { spawn } from 'node:child_process';
import { writeSync } from 'node:fs';
import { constants } from 'node:os';

/** How long the command gets to exit after SIGTERM before SIGKILL. */
const GRACE_MS = 4000;

const [command, ...args] = process.argv.slice(2);
if (command === undefined) {
  process.stderr.write('usage: node exit-with-parent.mjs COMMAND [ARG...]\n');
  process.exit(2);
}

/** One line to the parent, written before anything else can happen: the exit below never cuts it. */
function report(line) {
  try {
    writeSync(3, `${line}\n`);
  } catch {
    // Run by hand, without a descriptor 3: nobody to tell.
  }
}

const child = spawn(command, args, { stdio: ['ignore', 'inherit', 'inherit'] });

child.on('spawn', () => report(`pid ${child.pid}`));
child.on('error', (error) => {
  report(`error ${error.code ?? error.message}`);
  process.exit(127);
});
// A program ended by a signal exits as a shell reports it: 128 + the signal's number.
child.on('exit', (code, signal) => process.exit(code ?? 128 + (constants.signals[signal] ?? 0)));

let stopping = false;
function stop() {
  if (stopping) return;
  stopping = true;
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) process.exit(0);
  child.kill('SIGTERM');
  setTimeout(() => child.kill('SIGKILL'), GRACE_MS).unref();
}

process.stdin.on('end', stop);
process.stdin.on('close', stop);
process.stdin.on('error', stop);
process.stdin.resume();
process.on('SIGTERM', stop);
process.on('SIGHUP', stop);
// A Ctrl-C reaches the command itself; the guard stays to see it end and exits with its status.
process.on('SIGINT', () => {});
