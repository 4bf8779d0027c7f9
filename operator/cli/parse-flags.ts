/** Flags of the local command-line tools: node's parseArgs, with its errors and bad numbers as UserErrors. */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { UserError } from './user-error.js';

export type FlagValues = Readonly<Record<string, string | boolean | undefined>>;

/** `parseArgs` (strict, no positionals) whose mistakes are one-line UserErrors pointing at `helpHint`. */
export function parseFlags(
  argv: readonly string[],
  options: NonNullable<ParseArgsConfig['options']>,
  helpHint: string,
): FlagValues {
  try {
    return parseArgs({ args: [...argv], options, strict: true, allowPositionals: false })
      .values as FlagValues;
  } catch (error) {
    // Node's own message goes on with advice about positionals that does not apply here.
    throw new UserError(`${(error as Error).message.split('. ')[0]} (${helpHint})`);
  }
}

/** `parseArgs` (strict) for a command that takes arguments too (ids, say), with the same one-line errors. */
export function parseCommandLine(
  argv: readonly string[],
  options: NonNullable<ParseArgsConfig['options']>,
  helpHint: string,
): { readonly values: FlagValues; readonly positionals: readonly string[] } {
  try {
    const parsed = parseArgs({ args: [...argv], options, strict: true, allowPositionals: true });
    return { values: parsed.values as FlagValues, positionals: parsed.positionals };
  } catch (error) {
    throw new UserError(`${(error as Error).message.split('. ')[0]} (${helpHint})`);
  }
}

/** A whole number from 1 up, or `fallback` when the flag is absent. */
export function positiveIntegerFlag(name: string, raw: string | undefined, fallback: number): number {
  return integerFlag(name, raw, fallback, 1);
}

/** A whole number from 0 up, or `fallback` when the flag is absent. */
export function nonNegativeIntegerFlag(name: string, raw: string | undefined, fallback: number): number {
  return integerFlag(name, raw, fallback, 0);
}

function integerFlag(name: string, raw: string | undefined, fallback: number, min: number): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < min) {
    throw new UserError(`--${name} must be a whole number from ${min} up, got ${raw}`);
  }
  return value;
}
