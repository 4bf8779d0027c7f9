/**
 * AWS's matcher's documented examples, as Lambda's Kafka filters apply them. Every matching example of
 * aws/event-ruler's README and matching tests (at 337e8d99026d) that uses only the rules Lambda takes, and
 * every rule its compiler refuses: test/fixtures/filter-patterns/event-ruler-examples.json, each row with
 * its source, the rule and event as the source writes them and the engine's answer. Each rule is the
 * filter's `value` pattern and each event the record's JSON value, through the emulator's path
 * (lib/kafka-filters.ts); a rule is written the way code writes it (JSON.parse of its text: CDK sends
 * JSON.stringify of that).
 *
 * Where the answer here is not the engine's, DEVIATIONS says why, citing AWS's documentation or
 * docs/aws-facts.md#event-filtering: AWS's docs win over the engine's newest version where they speak,
 * and a pattern the engine decides by accident is refused at synth.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compileKafkaFilters, filterProblems } from '../../../lib/kafka-filters.js';

interface ExampleRow {
  readonly id: string;
  readonly source: string;
  readonly rule: string;
  /** Absent for a rule the compiler refuses. */
  readonly event?: string;
  readonly engine: boolean | 'refused';
  readonly why?: string;
  readonly note?: string;
}

const ROWS = JSON.parse(
  readFileSync(new URL('../../fixtures/filter-patterns/event-ruler-examples.json', import.meta.url), 'utf8'),
) as readonly ExampleRow[];

type Verdict = boolean | 'refused' | 'accepted';

const AMBIGUOUS_DOT =
  'refused at synth: AWS joins nested names with dots and says not to rely on it (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-create-pattern.html)';
const AMBIGUOUS_ABSENCE =
  'refused at synth: exists: false beside a field of one nested object, which the engine decides by the order of field names where the object is an array (docs/aws-facts.md#event-filtering)';
const AMBIGUOUS_OVERRIDE =
  'refused at synth: a field named beside $or and in a branch, which the engine resolves by its rule-overriding option (docs/aws-facts.md#event-filtering)';
const UNWRITABLE_NUMBER =
  'a pattern in code cannot hold this number: JSON.parse rounds it to a double, and the text CDK writes for that, AWS accepts';

const DEVIATIONS: Readonly<Record<string, { readonly verdict: Verdict; readonly because: string }>> = {
  'readme-dotted-keys-3': { verdict: 'refused', because: AMBIGUOUS_DOT },
  'readme-dotted-keys-4': { verdict: 'refused', because: AMBIGUOUS_DOT },
  'acmachine-readme-numeric-dotted': { verdict: 'refused', because: AMBIGUOUS_DOT },
  'rulertest-arrays-anna-ids-absent': { verdict: 'refused', because: AMBIGUOUS_ABSENCE },
  'acmachine-existfalse-r1-e1': { verdict: 'refused', because: AMBIGUOUS_ABSENCE },
  'acmachine-existfalse-r1-e2': { verdict: 'refused', because: AMBIGUOUS_ABSENCE },
  'acmachine-existfalse-r2-e1': { verdict: 'refused', because: AMBIGUOUS_ABSENCE },
  'acmachine-existfalse-r2-e2': { verdict: 'refused', because: AMBIGUOUS_ABSENCE },
  'jsoncompiler-override-1': { verdict: 'refused', because: AMBIGUOUS_OVERRIDE },
  'jsoncompiler-override-2': { verdict: 'refused', because: AMBIGUOUS_OVERRIDE },
  'comparable-precision-37-10': {
    verdict: false,
    because:
      'Lambda compares exact numbers by their text ("300, 300.0, and 3.0e2 are not considered equal": https://docs.aws.amazon.com/lambda/latest/dg/invocation-eventfiltering.html), and CDK writes 37.80780 as 37.8078',
  },
  'compiler-top-level-array': {
    verdict: 'accepted',
    because:
      "a Kafka filter's top level is { value: ... }, and a list under value is rules on a plain-string value (https://docs.aws.amazon.com/lambda/latest/dg/kafka-filtering.html)",
  },
  'numeric-bad-eq-1e-325': { verdict: 'accepted', because: `${UNWRITABLE_NUMBER} (1E-325 is 0)` },
  'probe-anything-but-long-decimal': { verdict: 'accepted', because: `${UNWRITABLE_NUMBER} (0.3)` },
  'probe-anything-but-bigint': {
    verdict: 'accepted',
    because: `${UNWRITABLE_NUMBER} (12345678901234567000)`,
  },
  'probe-numeric-long-decimal': { verdict: 'accepted', because: `${UNWRITABLE_NUMBER} (0.3)` },
};

/** What the emulator and the synth check make of a row. */
function verdictOf(row: ExampleRow): Verdict {
  const filter = { value: JSON.parse(row.rule) as Record<string, unknown> };
  if (filterProblems([filter]).length > 0) return 'refused';
  if (row.event === undefined) return 'accepted';
  return compileKafkaFilters([filter])(Buffer.from(row.event, 'utf8'));
}

describe("aws/event-ruler's documented examples as Lambda Kafka filters", () => {
  it('holds every documented example of the rules Lambda takes, and every refusal', () => {
    expect(ROWS.filter((row) => row.engine !== 'refused').length).toBe(210);
    expect(ROWS.filter((row) => row.engine === 'refused').length).toBe(72);
    expect(Object.keys(DEVIATIONS).filter((id) => !ROWS.some((row) => row.id === id))).toEqual([]);
  });

  it.each(ROWS.map((row) => [row.id, row.source, row] as const))('%s (%s)', (_id, _source, row) => {
    const deviation = DEVIATIONS[row.id];
    const expected: Verdict = deviation?.verdict ?? row.engine;
    expect(verdictOf(row), deviation?.because ?? row.why ?? row.note).toBe(expected);
  });
});
