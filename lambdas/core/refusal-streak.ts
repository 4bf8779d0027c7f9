import { MAX_REJECTIONS_WITHOUT_SUCCESS } from './store-failure.js';

/**
 * DynamoDB refusing records' content, counted across the invocations of one container since its last
 * applied record. A few in a row are poison records, quarantined; more with nothing applied in between
 * look like every record failing the same way (a deploy that writes an impossible item for each): those
 * are reported as systemic, so nothing is quarantined en masse, however often Lambda retries.
 */
export class RefusalStreak {
  #refusals = 0;

  /** A record was applied (or found applied): the table takes this consumer's writes. */
  applied(): void {
    this.#refusals = 0;
  }

  /** Whether this refusal may be quarantined as the record's own; counts it when it may. */
  admit(): boolean {
    if (this.#refusals >= MAX_REJECTIONS_WITHOUT_SUCCESS) return false;
    this.#refusals += 1;
    return true;
  }
}
