/**
 * FilterCriteria on a DynamoDB stream mapping: each pattern is matched against the stream record as the
 * function would receive it (`eventName`, `dynamodb.Keys`, `dynamodb.NewImage` in DynamoDB JSON, ...), by
 * the construct's own matcher (lib/filter-pattern.ts), so what synth accepts is what the emulator runs. A
 * record that matches no filter is dropped and the shard is checkpointed past it: "once your filter criteria
 * processes a Kinesis or DynamoDB record, the streams iterator advances past this record"
 * (docs/aws-facts.md#dynamodb-streams-and-lambdas-stream-event-source).
 */

import { compilePattern, patternProblems } from '../../lib/filter-pattern.js';
import { MAX_PATTERN_CHARACTERS } from '../../lib/kafka-filters.js';
import type { DynamoDBRecord } from './stream-event.js';

/** One filter: a pattern on the stream record, e.g. `{ dynamodb: { NewImage: { change: { S: ['appended'] } } } }`. */
export type StreamRecordFilter = Readonly<Record<string, unknown>>;

/** Problems with `filters`, each naming the filter; empty when Lambda would take them. */
export function streamFilterProblems(filters: readonly StreamRecordFilter[]): string[] {
  if (filters.length === 0) return ['filters is empty: leave it out to deliver every record'];
  return filters.flatMap((filter, index) => {
    const name = `filters[${index}]`;
    const problems = patternProblems(filter, name);
    const length = JSON.stringify(filter).length;
    if (length > MAX_PATTERN_CHARACTERS) {
      problems.push(
        `${name} is ${length} characters as JSON: Lambda takes at most ${MAX_PATTERN_CHARACTERS}`,
      );
    }
    return problems;
  });
}

/** Compiles the filters once; the result says whether a record reaches the function (any filter matches). */
export function streamRecordFilter(
  filters: readonly StreamRecordFilter[],
): (record: DynamoDBRecord) => boolean {
  if (filters.length === 0) return () => true;
  const compiled = filters.map((filter, index) => compilePattern(filter, `filters[${index}]`));
  return (record) => compiled.some((matches) => matches(record));
}
