/**
 * Prices each delivery's DynamoDB requests as DynamoDB bills them: a RequestRecorder on the contender's
 * client says what was sent, and a snapshot of the tables after each delivery (the one before is the
 * previous delivery's) says how large each item was. The snapshots use a client of their own, neither
 * counted nor delayed, and are taken outside the timed section.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { scanAll } from '../../local/dynamodb-local/tables.js';
import { type BilledCapacity, type ItemSizes, priceRecorded } from './billed-capacity.js';
import { itemSizeBytes } from './capacity-units.js';
import { keyOf, RequestRecorder } from './request-recorder.js';

export class CapacityMeter {
  readonly #admin: DynamoDBClient;
  readonly #tables: readonly string[];
  readonly #recorder = new RequestRecorder();
  #before: ItemSizes | undefined;

  /** `client` is the contender's; `admin` reads the `tables` it writes. */
  constructor(client: DynamoDBClient, admin: DynamoDBClient, tables: readonly string[]) {
    this.#admin = admin;
    this.#tables = tables;
    this.#recorder.attach(client);
  }

  /** Before a delivery: forgets what was sent since the last delivery, and knows the tables' items. */
  async begin(): Promise<void> {
    this.#recorder.take();
    this.#before ??= await this.#snapshot();
  }

  /** After a delivery: the units its requests are billed. */
  async end(): Promise<BilledCapacity> {
    const recorded = this.#recorder.take();
    const after = await this.#snapshot();
    const billed = priceRecorded(recorded, { before: this.#before ?? new Map(), after });
    this.#before = after;
    return billed;
  }

  async #snapshot(): Promise<ItemSizes> {
    const sizes = new Map<string, Map<string, number>>();
    for (const table of this.#tables) sizes.set(table, await tableItemSizes(this.#admin, table));
    return sizes;
  }
}

/** Each item's size in bytes, by its key (`pk`, or Powertools' `id`), from a scan of the table. */
export async function tableItemSizes(admin: DynamoDBClient, table: string): Promise<Map<string, number>> {
  const items = await scanAll(admin, table);
  return new Map(items.map((item) => [keyOf(item), itemSizeBytes(item)]));
}
