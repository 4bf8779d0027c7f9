/**
 * The soak's store port on DynamoDB Local: one fault-injecting client per schedule (fault-injection.ts),
 * shared by its execution environments as the soak always had it, and the end state read back with
 * consistent reads.
 */
import { BatchGetCommand, DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { dedupRowKey, INBOX_STATUS, quarantineRowKey } from '../../lambdas/core/inbox-rows.js';
import { orderConsumer } from '../../sample/order-consumer/order-placed.js';
import { faultInjectingClient } from './fault-injection.js';
import type { Journal } from './journal.js';
import type { DynamoDbSoakTarget } from './schedule-result.js';
import type {
  SeededInboxRow,
  SoakStore,
  StoredState,
  StoredStateQuery,
  StoreMutation,
} from './soak-store.js';

export function dynamoDbSoakStore(
  target: DynamoDbSoakTarget,
  journal: Journal,
  mutation: StoreMutation | undefined,
): SoakStore {
  const client = faultInjectingClient(target.endpoint, journal, mutation);
  const documentClient = DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true },
  });

  async function getMany(tableName: string, pks: readonly string[]) {
    const found = new Map<string, Record<string, unknown>>();
    const unique = [...new Set(pks)];
    for (let i = 0; i < unique.length; i += 100) {
      let keys: Record<string, unknown>[] | undefined = unique.slice(i, i + 100).map((pk) => ({ pk }));
      while (keys && keys.length > 0) {
        const page = await documentClient.send(
          new BatchGetCommand({ RequestItems: { [tableName]: { Keys: keys, ConsistentRead: true } } }),
        );
        for (const item of page.Responses?.[tableName] ?? []) found.set(item.pk as string, item);
        keys = page.UnprocessedKeys?.[tableName]?.Keys as Record<string, unknown>[] | undefined;
      }
    }
    return found;
  }

  return {
    kind: 'dynamodb',
    container() {
      return {
        consumer: orderConsumer(target.appTableName),
        storeOptions: { dynamoDb: client },
        settings: { inboxTableName: target.inboxTableName },
        retire: async () => undefined,
      };
    },
    async seed(consumer: string, { dedupKey, ...attributes }: SeededInboxRow) {
      await documentClient.send(
        new PutCommand({
          TableName: target.inboxTableName,
          Item: { pk: dedupRowKey(consumer, dedupKey), ...attributes },
        }),
      );
    },
    async read(query: StoredStateQuery): Promise<StoredState> {
      const { consumer } = query;
      const inbox = await getMany(target.inboxTableName, [
        ...query.dedupKeys.map((key) => dedupRowKey(consumer, key)),
        ...query.quarantinedCoordinates.map((coordinates) => quarantineRowKey(consumer, coordinates)),
      ]);
      const app = await getMany(target.appTableName, [
        ...query.orderIds.map((id) => `order#${id}`),
        ...query.accountIds.map((id) => `account#${id}`),
      ]);
      const dedupRows = new Map<string, { status: string; payloadHash: string }>();
      for (const key of query.dedupKeys) {
        const row = inbox.get(dedupRowKey(consumer, key));
        if (row) dedupRows.set(key, { status: String(row.status), payloadHash: String(row.payload_hash) });
      }
      const numbers = (prefix: string, ids: readonly string[], attribute: string) =>
        new Map(
          ids.flatMap((id) => {
            const value = app.get(`${prefix}#${id}`)?.[attribute];
            return typeof value === 'number' ? [[id, value] as const] : [];
          }),
        );
      return {
        dedupRows,
        quarantined: new Set(
          query.quarantinedCoordinates.filter(
            (coordinates) =>
              inbox.get(quarantineRowKey(consumer, coordinates))?.status === INBOX_STATUS.quarantined,
          ),
        ),
        orderTotals: numbers('order', query.orderIds, 'total'),
        balances: numbers('account', query.accountIds, 'balance'),
      };
    },
    async close() {
      client.destroy();
    },
  };
}
