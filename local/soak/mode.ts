/** What a schedule's consumer does with an event: writes with its inbox row, or a call under a lease. */
export type Mode = 'transactional' | 'side-effect';
