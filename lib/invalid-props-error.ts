/**
 * Props (or app context) that AWS would reject, or that would break exactly-once delivery: synth stops
 * with every problem listed, each saying what to change.
 */
export class InvalidPropsError extends Error {
  public override readonly name = 'InvalidPropsError';
  public readonly problems: readonly string[];

  public constructor(subject: string, problems: readonly string[]) {
    super(`${subject}:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.problems = problems;
  }
}

export function throwIfProblems(subject: string, problems: readonly string[]): void {
  if (problems.length > 0) {
    throw new InvalidPropsError(subject, problems);
  }
}
