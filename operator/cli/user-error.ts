/**
 * An error a person causes or can fix (a bad flag, a missing tool, a port in use, an address that does
 * not answer). Its message is one line that says what to do; the command-line tools print just that line,
 * with no stack trace, and exit with USAGE_EXIT_CODE.
 */
export class UserError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'UserError';
  }
}

/** The exit code of a UserError, as for a usage error of any Unix tool. */
export const USAGE_EXIT_CODE = 2;
