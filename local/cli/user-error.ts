/** Moved to lib/cli/ (it ships with the operator CLI); kept so in-progress local/ files still resolve. */
export * from '../../lib/cli/user-error.js';
