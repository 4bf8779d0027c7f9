/**
 * DynamoDB Local 2.6 and later run only on a Java 17 or newer runtime (docs/toolchain.md, from
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/DynamoDBLocal.DownloadingAndRunning.html).
 * Checked before anything is fetched or started, so a machine without it hears so in one line.
 */
import { spawnSync } from 'node:child_process';
import { UserError } from '../../operator/cli/user-error.js';

export const MINIMUM_JAVA_MAJOR = 17;

const INSTALL_JAVA =
  'install a Java 17 runtime (Debian/Ubuntu: apt-get install openjdk-17-jre-headless; macOS: brew install openjdk@17)';

/** No usable Java runtime: none on the PATH, or one older than DynamoDB Local needs. */
export class JavaRuntimeError extends UserError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'JavaRuntimeError';
  }
}

export interface JavaRuntime {
  /** The first line `java -version` prints, e.g. `openjdk version "17.0.15" 2025-04-15`. */
  readonly description: string;
  readonly major: number;
}

let found: { readonly path: string | undefined; readonly runtime: JavaRuntime | undefined } | undefined;

/** The Java runtime on the PATH, or undefined when there is none; asked once per process and PATH. */
export function findJavaRuntime(): JavaRuntime | undefined {
  const path = process.env.PATH;
  if (found === undefined || found.path !== path) found = { path, runtime: askJavaVersion() };
  return found.runtime;
}

function askJavaVersion(): JavaRuntime | undefined {
  // `java -version` writes to stderr.
  const result = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (result.error !== undefined || result.status !== 0) return undefined;
  const description = result.stderr.split('\n')[0]?.trim() ?? '';
  return { description, major: javaMajorVersion(description) };
}

/** 17 from `version "17.0.15"`, 8 from the old scheme's `version "1.8.0_422"`; 0 when unreadable. */
export function javaMajorVersion(description: string): number {
  const match = /version "(\d+)(?:\.(\d+))?/.exec(description);
  if (!match) return 0;
  const first = Number(match[1]);
  return first === 1 ? Number(match[2] ?? 0) : first;
}

/** Throws a one-line JavaRuntimeError unless a Java runtime DynamoDB Local can use is on the PATH. */
export function assertJavaRuntime(): JavaRuntime {
  return checkJavaRuntime(findJavaRuntime());
}

/** The runtime when DynamoDB Local can use it, else a one-line JavaRuntimeError saying what to install. */
export function checkJavaRuntime(runtime: JavaRuntime | undefined): JavaRuntime {
  if (runtime === undefined) {
    throw new JavaRuntimeError(`java is not installed (DynamoDB Local needs it): ${INSTALL_JAVA}`);
  }
  if (runtime.major < MINIMUM_JAVA_MAJOR) {
    throw new JavaRuntimeError(
      `DynamoDB Local needs Java ${MINIMUM_JAVA_MAJOR} or newer, found ${runtime.description || 'an unreadable version'}: ${INSTALL_JAVA}`,
    );
  }
  return runtime;
}
