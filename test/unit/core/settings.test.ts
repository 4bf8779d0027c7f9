import { describe, expect, it } from 'vitest';
import {
  checkSettings,
  HANDLER_SETTINGS,
  readHandlerSettings,
  type SettingName,
  type TunableSettings,
} from '../../../lambdas/core/settings.js';

const REQUIRED = { INBOX_TABLE_NAME: 'inbox', CONSUMER_NAME: 'orders' };
const asProps = (name: SettingName) => `settings.${name}`;

describe('checkSettings', () => {
  it('judges text from the environment and numbers from code alike, each named as its caller says', () => {
    const fromEnv = readHandlerSettings({ ...REQUIRED, KEY_CONCURRENCY: '0', ORDERING: 'key' }).problems;
    const fromCode = checkSettings(
      { inboxTableName: 'inbox', consumerName: 'orders', keyConcurrency: 0, ordering: 'key' },
      asProps,
    ).problems;

    expect(fromEnv).toEqual(['KEY_CONCURRENCY "0" must be a whole number from 1 to 1000']);
    expect(fromCode).toEqual(['settings.keyConcurrency "0" must be a whole number from 1 to 1000']);
  });

  it('names the settings of a rule between them in the caller vocabulary too', () => {
    const given = { inboxTableName: 'inbox', consumerName: 'orders', keySource: 'field:id' };

    expect(checkSettings(given).problems).toEqual([
      'KEY_SOURCE and KEY_CONCURRENCY apply only when ORDERING is key',
    ]);
    expect(checkSettings(given, asProps).problems).toEqual([
      'settings.keySource and settings.keyConcurrency apply only when settings.ordering is key',
    ]);
  });

  it('reads a value as the handler reads its variable: trimmed, empty meaning absent', () => {
    const { settings, problems } = checkSettings({
      inboxTableName: ' inbox ',
      consumerName: 'orders',
      dedupHeader: '',
      ordering: 'key',
      keySource: 'field: ',
    });

    expect(problems).toEqual(['KEY_SOURCE "field:" must be kafka-key or field:<name>']);
    expect(settings).toMatchObject({
      inboxTableName: 'inbox',
      dedupHeader: 'event_id',
      keySource: 'kafka-key',
    });
  });

  it('names each missing required setting, and gives a bad value its default', () => {
    const { settings, problems } = checkSettings({ partitionConcurrency: '2.5' }, asProps);

    expect(problems).toEqual([
      'settings.inboxTableName is required',
      'settings.consumerName is required',
      'settings.partitionConcurrency "2.5" must be a whole number from 1 to 256',
    ]);
    expect(settings.partitionConcurrency).toBe(HANDLER_SETTINGS.partitionConcurrency.default);
  });
});

describe('TunableSettings', () => {
  it('offers no setting a KafkaConsumer prop carries', () => {
    const tunable: TunableSettings[] = [
      { ordering: 'key', keySource: 'field:account_id', completedKeyCacheSize: 0 },
      // @ts-expect-error the dedupTtl prop carries it
      { dedupTtlSeconds: 86_400 },
      // @ts-expect-error the deadlineMargin prop carries it
      { deadlineMarginMs: 5_000 },
      // @ts-expect-error the partitionConcurrency prop carries it
      { partitionConcurrency: 2 },
      // @ts-expect-error the consumerName prop carries it
      { consumerName: 'orders' },
      // @ts-expect-error the inboxTable prop carries it
      { inboxTableName: 'inbox' },
      // @ts-expect-error the outbox prop carries it
      { outboxTableName: 'outbox' },
      // @ts-expect-error the consumerGroupId prop carries it
      { consumerGroupId: 'orders-group' },
    ];
    // Every setting the table gives a `prop` is refused above: a new one needs its line here.
    const carried = Object.entries(HANDLER_SETTINGS)
      .filter(([, definition]) => 'prop' in definition)
      .map(([name]) => name);

    expect(
      tunable
        .slice(1)
        .flatMap((settings) => Object.keys(settings))
        .sort(),
    ).toEqual(carried.sort());
  });
});
