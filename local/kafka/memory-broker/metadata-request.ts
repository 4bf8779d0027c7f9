/**
 * Metadata v4-6: which broker leads which partition of the asked topics. One broker leads them all.
 * https://kafka.apache.org/protocol#The_Messages_Metadata
 *
 *   Request:  topics: nullable [name: STRING] (null: every topic), allow_auto_topic_creation: BOOLEAN
 *   Response: throttle_time_ms, brokers: [node_id, host, port, rack], cluster_id, controller_id,
 *             topics: [error_code, name, is_internal, partitions: [error_code, partition_index, leader_id,
 *             replica_nodes: [INT32], isr_nodes: [INT32], offline_replicas: [INT32] (v5+)]]
 */
import { KafkaErrorCode } from './error-codes.js';
import type { BrokerContext, RequestHandler } from './request-context.js';
import { WireWriter } from './wire-format.js';

interface TopicMetadata {
  readonly name: string;
  readonly errorCode: KafkaErrorCode;
  readonly partitionCount: number;
}

/** Kafka's rule for topic names (org.apache.kafka.common.internals.Topic.validate). */
const LEGAL_TOPIC_NAME = /^[a-zA-Z0-9._-]{1,249}$/;

export const handleMetadata: RequestHandler = async (version, body, context) => {
  const requested = body.nullableArray((reader) => reader.string());
  const allowAutoTopicCreation = body.boolean();
  const names = requested ?? context.log.topicNames();
  const topics = names.map((name) => describeTopic(name, allowAutoTopicCreation, context));
  const writer = new WireWriter()
    .int32(0) // throttle_time_ms
    .array([context.nodeId], (brokerWriter, nodeId) => {
      brokerWriter.int32(nodeId).string(context.host).int32(context.port).nullableString(null); // rack
    })
    .nullableString(context.clusterId)
    .int32(context.nodeId) // controller_id
    .array(topics, (topicWriter, topic) => {
      topicWriter.int16(topic.errorCode).string(topic.name).boolean(false); // is_internal
      const partitions = Array.from({ length: topic.partitionCount }, (_, index) => index);
      topicWriter.array(partitions, (partitionWriter, index) => {
        partitionWriter.int16(KafkaErrorCode.NONE).int32(index).int32(context.nodeId); // leader_id
        partitionWriter.array([context.nodeId], (nodes, nodeId) => nodes.int32(nodeId)); // replica_nodes
        partitionWriter.array([context.nodeId], (nodes, nodeId) => nodes.int32(nodeId)); // isr_nodes
        if (version >= 5) partitionWriter.array([], () => {}); // offline_replicas
      });
    });
  return writer.toBuffer();
};

/**
 * A topic the log lacks is UNKNOWN_TOPIC_OR_PARTITION with no partitions, unless the broker auto-creates
 * topics and the request allows it. A real broker answers that first request LEADER_NOT_AVAILABLE while
 * the topic's partitions get leaders, and the client asks again; here the topic exists at once, so the
 * first answer already lists its partitions.
 */
function describeTopic(name: string, allowAutoCreation: boolean, context: BrokerContext): TopicMetadata {
  const known = context.log.partitionCount(name);
  if (known !== undefined) return { name, errorCode: KafkaErrorCode.NONE, partitionCount: known };
  if (!context.autoCreateTopics || !allowAutoCreation) {
    return { name, errorCode: KafkaErrorCode.UNKNOWN_TOPIC_OR_PARTITION, partitionCount: 0 };
  }
  if (!LEGAL_TOPIC_NAME.test(name) || name === '.' || name === '..') {
    return { name, errorCode: KafkaErrorCode.INVALID_TOPIC_EXCEPTION, partitionCount: 0 };
  }
  context.log.createTopic(name, context.autoCreatedPartitions);
  return { name, errorCode: KafkaErrorCode.NONE, partitionCount: context.autoCreatedPartitions };
}
