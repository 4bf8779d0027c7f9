/** What Kafka (and Lambda's Kafka event source) accept as names. https://docs.aws.amazon.com/lambda/latest/api/API_CreateEventSourceMapping.html */

/** A topic: 1-249 of a-z A-Z 0-9 . _ - (Kafka's own rule). */
export const KAFKA_TOPIC = /^[a-zA-Z0-9._-]{1,249}$/;

/** A consumer group id as Lambda's `ConsumerGroupId` takes it. */
export const CONSUMER_GROUP_ID = /^[a-zA-Z0-9\-/*:_+=.@]{1,200}$/;
