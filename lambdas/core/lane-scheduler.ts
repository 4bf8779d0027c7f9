/**
 * The one scheduler of a partition's records, for both orderings: records are split into lanes (one per
 * ordering key, or a single lane for the whole partition), each lane runs in offset order, lanes
 * concurrently up to a bound. Partition ordering is key ordering with one lane. The next record started is
 * always the lowest-offset record whose lane is idle, so work stays close to the partition's offset order
 * and a deadline cuts the batch near its end.
 *
 * The rule of what a partition reports lives here and only here. Lambda commits a partition up to its
 * lowest reported offset and redelivers everything after it (docs/aws-facts.md). So once a record is
 * reported, no record after it starts (it will come back anyway); records before it in other lanes still
 * run, since they will be committed. No record starts once the invocation's deadline is near. Records
 * after a reported one that had already finished are reported too (toBatchResponse), which is safe: their
 * redelivery is deduplicated.
 */
import type { DecodedRecord } from './decode-event.js';
import { isReported, type RecordOutcome } from './outcome.js';

export interface LaneWork {
  /**
   * Runs consecutive records of one lane, from the first, in offset order; never throws. Returns the
   * outcomes of a prefix of them (at least the first): it may stop early (a reported record, the deadline),
   * and the records it did not take stay in the lane.
   */
  run(records: readonly DecodedRecord[]): Promise<RecordOutcome[]>;
  /** The outcome of a record that is not started. */
  notStarted(
    record: DecodedRecord,
    status: 'blocked' | 'deferred',
    reason: string,
    detail: string,
  ): RecordOutcome;
  /** True once no record may start: the invocation's deadline is near. */
  deadlineNear(): boolean;
}

interface Lane {
  /** Positions in the partition, ascending. */
  readonly positions: number[];
  next: number;
}

interface Stop {
  readonly position: number;
  readonly status: 'blocked' | 'deferred';
  readonly detail: string;
}

/** How a partition's records are split into lanes, and how many lanes run at once. */
export interface Lanes {
  /** Records with the same lane key run one after another; `undefined` is a lane of its own. */
  readonly laneOf: (record: DecodedRecord) => string | undefined;
  readonly concurrency: number;
  /** Records of a lane offered to `run` at once (a group commit's size); 1 offers them one by one. */
  readonly take: number;
}

/** Partition ordering: every record in one lane. */
export function oneLane(take: number): Lanes {
  return { laneOf: () => undefined, concurrency: 1, take };
}

export async function runInLanes(
  records: readonly DecodedRecord[],
  { laneOf, concurrency, take }: Lanes,
  work: LaneWork,
): Promise<RecordOutcome[]> {
  const byKey = new Map<string | undefined, Lane>();
  records.forEach((record, position) => {
    const key = laneOf(record);
    const lane = byKey.get(key);
    if (lane) lane.positions.push(position);
    else byKey.set(key, { positions: [position], next: 0 });
  });
  const idle = new LaneHeap([...byKey.values()]);
  const outcomes = new Array<RecordOutcome | undefined>(records.length);
  let stop: Stop | undefined;
  const lowerStop = (position: number, status: Stop['status'], detail: string) => {
    if (stop === undefined || position < stop.position) stop = { position, status, detail };
  };

  const worker = async (): Promise<void> => {
    for (let lane = idle.pop(); lane !== undefined; lane = idle.pop()) {
      const position = lane.positions[lane.next++] as number;
      const record = records[position] as DecodedRecord;
      if (stop !== undefined && position > stop.position) {
        // Every later record of this lane is after the stop too.
        for (const later of lane.positions.slice(lane.next - 1)) {
          outcomes[later] = work.notStarted(
            records[later] as DecodedRecord,
            stop.status,
            'not-started',
            stop.detail,
          );
        }
        continue;
      }
      if (work.deadlineNear()) {
        const detail = 'the invocation deadline is near';
        outcomes[position] = work.notStarted(record, 'deferred', 'deadline', detail);
        lowerStop(position, 'deferred', detail);
      } else {
        // The lane's next records, none past a stop known now; `run` may take fewer.
        const offered = lane.positions
          .slice(lane.next - 1, lane.next - 1 + take)
          .filter((later) => stop === undefined || later <= stop.position);
        const ran = await work.run(offered.map((later) => records[later] as DecodedRecord));
        if (ran.length === 0 || ran.length > offered.length) {
          throw new Error(`a lane run answered ${ran.length} outcomes for ${offered.length} records`);
        }
        ran.forEach((outcome, index) => {
          const at = offered[index] as number;
          outcomes[at] = outcome;
          if (outcome.status === 'deferred') lowerStop(at, 'deferred', 'the invocation deadline is near');
          else if (isReported(outcome.status))
            lowerStop(at, 'blocked', `${outcome.coordinates} was reported`);
        });
        lane.next += ran.length - 1;
      }
      if (lane.next < lane.positions.length) idle.push(lane);
    }
  };
  // A worker ends when no lane is idle; lanes still running are carried on by the workers running them.
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, byKey.size)) }, worker));
  return outcomes.map((outcome, position) => {
    if (outcome === undefined) throw new Error(`record at position ${position} got no outcome`);
    return outcome;
  });
}

/** Idle lanes, lowest next position first (a binary heap: O(log lanes) per step). */
class LaneHeap {
  readonly #items: Lane[];

  constructor(lanes: Lane[]) {
    // Built in position order of each lane's first record, which is already a valid heap.
    this.#items = lanes;
  }

  push(lane: Lane): void {
    const items = this.#items;
    items.push(lane);
    let child = items.length - 1;
    while (child > 0) {
      const parent = (child - 1) >> 1;
      if (head(items[parent] as Lane) <= head(lane)) break;
      items[child] = items[parent] as Lane;
      child = parent;
    }
    items[child] = lane;
  }

  pop(): Lane | undefined {
    const items = this.#items;
    const top = items[0];
    const last = items.pop();
    if (top === undefined || last === undefined || items.length === 0) return top;
    let parent = 0;
    for (;;) {
      const left = 2 * parent + 1;
      if (left >= items.length) break;
      const right = left + 1;
      const smaller =
        right < items.length && head(items[right] as Lane) < head(items[left] as Lane) ? right : left;
      if (head(items[smaller] as Lane) >= head(last)) break;
      items[parent] = items[smaller] as Lane;
      parent = smaller;
    }
    items[parent] = last;
    return top;
  }
}

function head(lane: Lane): number {
  return lane.positions[lane.next] as number;
}
