/** The sample service under test: the orders test harness, built from the sample's own options. */
import { orderConsumer as sampleOptions } from '../../../sample/order-consumer/order-placed.js';
import type { TestTables } from '../../support/dynamodb.js';
import { orderConsumer } from '../../support/order-consumer.js';

export function sampleConsumer(
  tables: TestTables,
  options: Omit<NonNullable<Parameters<typeof orderConsumer>[1]>, 'consumer'> = {},
) {
  return orderConsumer(tables, { ...options, consumer: sampleOptions });
}
