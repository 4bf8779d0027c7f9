/** Placeholder: the relay branch replaces this file with the outbox relay (docs/outbox.md). */
export const handler = async (): Promise<{ batchItemFailures: never[] }> => ({ batchItemFailures: [] });
