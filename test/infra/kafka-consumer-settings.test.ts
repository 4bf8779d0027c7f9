/**
 * The handler's settings as the KafkaConsumer gives them: its `settings` prop reaches the function as the
 * variables, and synth refuses what the handler would refuse at its cold start, in the same words, named
 * as the props to change.
 */
import { Duration, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { readHandlerSettings } from '../../lambdas/core/settings.js';
import { InboxTable } from '../../lib/inbox-table.js';
import { InvalidPropsError } from '../../lib/invalid-props-error.js';
import { KafkaConsumer, type KafkaConsumerProps } from '../../lib/kafka-consumer.js';
import { EXAMPLE_CLUSTER_ARN, FIXTURE_ENTRY, onlyResource, projectApp } from './support.js';

const CONSUMER_NAME = 'order-consumer';

function consumer(overrides: Partial<KafkaConsumerProps>): KafkaConsumer {
  const stack = new Stack(projectApp({ builtinCloudFormationValidation: false }), 'Consumer');
  return new KafkaConsumer(stack, 'Orders', {
    consumerName: CONSUMER_NAME,
    source: { kind: 'msk', clusterArn: EXAMPLE_CLUSTER_ARN },
    topic: 'orders',
    consumerGroupId: 'order-consumer-group',
    inboxTable: new InboxTable(stack, 'Inbox'),
    entry: FIXTURE_ENTRY,
    ...overrides,
  });
}

/** Every problem synth names for these props; none when it passes. */
function synthProblems(overrides: Partial<KafkaConsumerProps>): readonly string[] {
  try {
    consumer(overrides);
  } catch (error) {
    if (error instanceof InvalidPropsError) return error.problems;
    throw error;
  }
  return [];
}

/** How the construct names what the handler names by its variable. */
const AS_PROPS: Readonly<Record<string, string>> = {
  CONSUMER_NAME: 'consumerName',
  DEDUP_TTL_SECONDS: 'dedupTtl (as DEDUP_TTL_SECONDS)',
  DEADLINE_MARGIN_MS: 'deadlineMargin (as DEADLINE_MARGIN_MS)',
  PARTITION_CONCURRENCY: 'partitionConcurrency',
  ORDERING: 'settings.ordering',
  KEY_SOURCE: 'settings.keySource',
  KEY_CONCURRENCY: 'settings.keyConcurrency',
  DEDUP_KEY_FALLBACK: 'settings.dedupKeyFallback',
  TRANSACT_GROUP_MAX_RECORDS: 'settings.transactGroupMaxRecords',
};

describe('KafkaConsumer settings', () => {
  it('passes every setting given in `settings` to the handler as its variable', () => {
    const tuned = consumer({
      settings: {
        ordering: 'key',
        keySource: 'field:account_id',
        keyConcurrency: 4,
        leaseMarginMs: 20_000,
        completedKeyCacheSize: 0,
        transactGroupMaxRecords: 1,
        dedupHeader: 'id',
        dedupField: 'id',
        dedupKeyFallback: 'coordinates',
      },
    });
    const fn = onlyResource(Template.fromStack(Stack.of(tuned)), 'AWS::Lambda::Function');
    expect((fn.Properties.Environment as { Variables: unknown }).Variables).toMatchObject({
      ORDERING: 'key',
      KEY_SOURCE: 'field:account_id',
      KEY_CONCURRENCY: '4',
      LEASE_MARGIN_MS: '20000',
      COMPLETED_KEY_CACHE_SIZE: '0',
      TRANSACT_GROUP_MAX_RECORDS: '1',
      DEDUP_HEADER: 'id',
      DEDUP_FIELD: 'id',
      DEDUP_KEY_FALLBACK: 'coordinates',
    });
  });

  // [case, the props, the variables the function would get from them]
  const refusedAlike: [string, Partial<KafkaConsumerProps>, Record<string, string>][] = [
    [
      'a setting out of its bounds',
      { settings: { ordering: 'key', keyConcurrency: 0 } },
      { ORDERING: 'key', KEY_CONCURRENCY: '0' },
    ],
    [
      'a group size past what one transaction holds',
      { settings: { transactGroupMaxRecords: 101 } },
      { TRANSACT_GROUP_MAX_RECORDS: '101' },
    ],
    [
      'a choice the handler does not offer',
      { settings: { dedupKeyFallback: 'offset' as 'none' } },
      { DEDUP_KEY_FALLBACK: 'offset' },
    ],
    [
      'a key source the handler cannot read',
      { settings: { ordering: 'key', keySource: 'header:x' } },
      { ORDERING: 'key', KEY_SOURCE: 'header:x' },
    ],
    [
      'a key source the handler trims to nothing',
      { settings: { ordering: 'key', keySource: 'field: ' } },
      { ORDERING: 'key', KEY_SOURCE: 'field: ' },
    ],
    [
      'a key source without key ordering',
      { settings: { keySource: 'field:account_id' } },
      { KEY_SOURCE: 'field:account_id' },
    ],
    ['a consumer name with #', { consumerName: 'orders#1' }, { CONSUMER_NAME: 'orders#1' }],
    [
      'a dedup TTL in fractions of a second',
      { dedupTtl: Duration.millis(604_800_500) },
      { DEDUP_TTL_SECONDS: '604800.5' },
    ],
    [
      'a deadline margin past what the handler accepts',
      { timeout: Duration.minutes(15), deadlineMargin: Duration.minutes(11) },
      { DEADLINE_MARGIN_MS: '660000' },
    ],
    ['no partition at a time', { partitionConcurrency: 0 }, { PARTITION_CONCURRENCY: '0' }],
  ];

  it.each(refusedAlike)(
    'refuses %s in the words of the handler, named as props',
    (_case, props, variables) => {
      const atColdStart = readHandlerSettings({
        INBOX_TABLE_NAME: 'inbox',
        CONSUMER_NAME,
        ...variables,
      }).problems;
      const asProps = atColdStart.map((problem) =>
        Object.entries(AS_PROPS).reduce(
          (named, [variable, prop]) => named.replaceAll(variable, prop),
          problem,
        ),
      );

      expect(atColdStart).not.toEqual([]);
      expect(synthProblems(props)).toEqual(asProps);
    },
  );

  it('refuses, for JavaScript callers, a setting that a prop carries or that does not exist', () => {
    // TypeScript refuses these already (test/unit/core/settings.test.ts): TunableSettings lacks them.
    const settings = { deadlineMarginMs: 5_000, consumerName: 'x', dedupTtl: 60 } as never;

    expect(synthProblems({ settings })).toEqual([
      'settings.deadlineMarginMs comes from the deadlineMargin prop: set deadlineMargin instead',
      'settings.consumerName comes from the consumerName prop: set consumerName instead',
      'settings.dedupTtl is not a setting: remove it',
    ]);
  });

  it('names a refused key and a bad value of the rest in one synth: every problem at once', () => {
    const settings = { deadlineMarginMs: 5_000, leaseMarginMs: -1 } as never;

    const problems = synthProblems({ settings });

    expect(problems[0]).toBe(
      'settings.deadlineMarginMs comes from the deadlineMargin prop: set deadlineMargin instead',
    );
    expect(problems.slice(1)).toEqual([expect.stringMatching(/^settings\.leaseMarginMs/)]);
  });
});
