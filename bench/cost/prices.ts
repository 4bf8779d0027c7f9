/**
 * Every price the bench multiplies by, in one place: on-demand, us-east-1, as published when checked.
 * Sources (the rules they apply to: docs/aws-facts.md#what-lambda-bills and #item-sizes-and-capacity-units):
 * - DynamoDB on-demand, Standard table class: https://aws.amazon.com/dynamodb/pricing/on-demand/ ; halved
 *   from $1.25 and $0.25 on 1 November 2024:
 *   https://aws.amazon.com/about-aws/whats-new/2024/11/amazon-dynamodb-reduces-prices-on-demand-throughput-global-tables/
 * - Lambda requests and duration, first tier (up to 7.5 billion arm64 GB-seconds a month, 6 billion x86_64):
 *   https://aws.amazon.com/lambda/pricing/
 * Not priced: the free tiers, the event source mapping's provisioned pollers and MSK itself (the same for
 * every contender), storage, data transfer.
 */

export const PRICES = {
  region: 'us-east-1',
  checked: '2026-12-02',
  dynamoDb: {
    /** USD per million write request units. */
    writeRequestUnitsPerMillion: 0.625,
    /** USD per million read request units. */
    readRequestUnitsPerMillion: 0.125,
  },
  lambda: {
    /** USD per million invocations, either architecture. */
    requestsPerMillion: 0.2,
    /** USD per GB-second of billed duration. */
    gbSecond: { arm64: 0.0000133334, x86_64: 0.0000166667 },
  },
} as const;
