import type { Contender } from './contender.js';
import { inboxContender } from './inbox.js';
import { powertoolsContender } from './powertools.js';

/** Every contender, in report order; each runs the same deliveries on fresh tables. */
export const CONTENDERS: readonly Contender[] = [
  inboxContender({
    name: 'inbox-tx',
    description: 'transactional mode: one TransactWriteItems (inbox row + 2 updates) per new record',
    mode: 'transactional',
  }),
  inboxContender({
    name: 'inbox-tx-per-key',
    description: 'transactional mode, ORDERING=key on the Kafka key: keys of a partition run concurrently',
    mode: 'transactional',
    env: { ORDERING: 'key', KEY_SOURCE: 'kafka-key' },
  }),
  inboxContender({
    name: 'inbox-claim',
    description: 'side-effect mode: claim PutItem, 2 UpdateItem under the lease, fenced complete UpdateItem',
    mode: 'side-effect',
  }),
  powertoolsContender,
];
