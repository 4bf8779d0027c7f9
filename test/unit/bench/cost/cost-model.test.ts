import { describe, expect, it } from 'vitest';
import { billedMilliseconds, dollarsPerMillionEvents, gbSeconds } from '../../../../bench/cost/cost-model.js';

describe('Lambda billed duration', () => {
  it('rounds each invocation up to the next millisecond, 1 ms at least', () => {
    expect(billedMilliseconds(0.2)).toBe(1);
    expect(billedMilliseconds(1)).toBe(1);
    expect(billedMilliseconds(1.0001)).toBe(2);
    expect(billedMilliseconds(37.5)).toBe(38);
  });

  it('counts GB-seconds at the memory, a GB being 1,024 MB', () => {
    expect(gbSeconds(1000, 1024)).toBe(1);
    expect(gbSeconds(500, 512)).toBe(0.25);
  });
});

describe('dollars per million events', () => {
  it('adds DynamoDB units and Lambda requests and GB-seconds at the published prices', () => {
    // 6 WRU, 1 RRU, a batch of 100 records, 2 billed ms a record at 1,024 MB on arm64.
    const dollars = dollarsPerMillionEvents({
      dynamoDb: { writeUnits: 6, readUnits: 1 },
      invocations: 0.01,
      billedMilliseconds: 2,
    });
    expect(dollars.dynamoDbWrites).toBeCloseTo(6 * 0.625, 10); // 3.75
    expect(dollars.dynamoDbReads).toBeCloseTo(1 * 0.125, 10); // 0.125
    expect(dollars.lambdaRequests).toBeCloseTo(0.01 * 0.2, 10); // 0.002
    // 2 ms × 1 GB = 0.002 GB-s a record, 2,000 GB-s a million, × $0.0000133334
    expect(dollars.lambdaDuration).toBeCloseTo(0.0266668, 10);
    expect(dollars.total).toBeCloseTo(3.75 + 0.125 + 0.002 + 0.0266668, 10);
  });

  it('prices only the Lambda side of a store billed per instance-hour', () => {
    const dollars = dollarsPerMillionEvents({ invocations: 0.01, billedMilliseconds: 2 });
    expect(dollars.dynamoDbWrites + dollars.dynamoDbReads).toBe(0);
    expect(dollars.total).toBeCloseTo(0.002 + 0.0266668, 10);
  });
});
