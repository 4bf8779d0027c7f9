/**
 * The event source mapping's schema registry integration: Lambda fetches each record's schema from an AWS
 * Glue Schema Registry or a Confluent Schema Registry, validates the chosen attributes and delivers them as
 * JSON (or in their source format, the schema metadata removed), with the IAM the pollers need.
 * https://docs.aws.amazon.com/lambda/latest/dg/services-consume-kafka-events.html (schema registry)
 */
import { Fn, Token } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';

/** What the mapping delivers: JSON (the handler reads it as any JSON value) or the source format. */
export type EventRecordFormat = 'JSON' | 'SOURCE';
/** The record attributes the registry validates (and, with JSON, converts). */
export type SchemaValidationAttribute = 'KEY' | 'VALUE';

export interface RegistryCommon {
  /** @default 'JSON' */
  readonly eventRecordFormat?: EventRecordFormat;
  /**
   * The attributes to validate; with `eventRecordFormat: 'JSON'` they are also converted.
   * @default ['VALUE']
   */
  readonly validate?: readonly SchemaValidationAttribute[];
}

/** An AWS Glue Schema Registry: the role gets glue:GetRegistry and glue:GetSchemaVersion on it. */
export interface GlueSchemaRegistry extends RegistryCommon {
  readonly kind: 'glue';
  /** `arn:aws:glue:<region>:<account>:registry/<name>` */
  readonly registryArn: string;
}

/**
 * A Confluent Schema Registry at `uri`, reached with basic auth or a client certificate (one of them, or
 * neither for an open registry), and a private root CA when its certificate is not publicly trusted. Each
 * is a Secrets Manager secret the role may read.
 */
export interface ConfluentSchemaRegistry extends RegistryCommon {
  readonly kind: 'confluent';
  /** The registry's URL, e.g. `https://psrc-abc.us-east-1.aws.confluent.cloud`. */
  readonly uri: string;
  /** Complete ARN of a secret with `username` and `password`. @default - no basic auth */
  readonly basicAuthSecretArn?: string;
  /** Complete ARN of a secret with the client certificate chain and private key (mutual TLS). @default - none */
  readonly clientCertificateSecretArn?: string;
  /** Complete ARN of a secret with the root CA certificate of the registry's TLS. @default - public CAs */
  readonly serverRootCaSecretArn?: string;
}

export type SchemaRegistry = GlueSchemaRegistry | ConfluentSchemaRegistry;

const GLUE_REGISTRY_ARN = /^arn:aws[a-z-]*:glue:[a-z0-9-]+:\d{12}:registry\/[^/]+$/;
const REGISTRY_URL = /^https?:\/\/[^\s/]+/;

export function schemaRegistryProblems(registry: SchemaRegistry | undefined): string[] {
  if (registry === undefined) return [];
  const problems: string[] = [];
  const attributes = registry.validate ?? ['VALUE'];
  if (attributes.length === 0 || new Set(attributes).size !== attributes.length) {
    problems.push('schemaRegistry.validate must list KEY, VALUE or both, each once');
  }
  if (registry.kind === 'glue') {
    if (!Token.isUnresolved(registry.registryArn) && !GLUE_REGISTRY_ARN.test(registry.registryArn)) {
      problems.push(
        `schemaRegistry.registryArn "${registry.registryArn}" is not a Glue registry ARN (arn:aws:glue:<region>:<account>:registry/<name>)`,
      );
    }
    return problems;
  }
  if (!Token.isUnresolved(registry.uri) && !REGISTRY_URL.test(registry.uri)) {
    problems.push(`schemaRegistry.uri "${registry.uri}" is not a URL: give the registry's https:// address`);
  }
  if (registry.basicAuthSecretArn !== undefined && registry.clientCertificateSecretArn !== undefined) {
    problems.push(
      'schemaRegistry sets both basicAuthSecretArn and clientCertificateSecretArn: Lambda authenticates to a Confluent registry one way; keep one',
    );
  }
  for (const [name, arn] of confluentSecrets(registry)) {
    if (!Token.isUnresolved(arn) && !arn.startsWith('arn:')) {
      problems.push(`schemaRegistry.${name} "${arn}" is not an ARN: give the secret's complete ARN`);
    }
  }
  return problems;
}

function confluentSecrets(registry: ConfluentSchemaRegistry): [string, string][] {
  const secrets: [string, string | undefined][] = [
    ['basicAuthSecretArn', registry.basicAuthSecretArn],
    ['clientCertificateSecretArn', registry.clientCertificateSecretArn],
    ['serverRootCaSecretArn', registry.serverRootCaSecretArn],
  ];
  return secrets.filter((entry): entry is [string, string] => entry[1] !== undefined);
}

/**
 * The mapping's `SchemaRegistryConfig`, and the grants: for Glue, GetRegistry on the registry and
 * GetSchemaVersion on it and its schemas; for Confluent, GetSecretValue on each secret.
 * https://docs.aws.amazon.com/lambda/latest/dg/services-consume-kafka-events.html
 */
export function bindSchemaRegistry(registry: SchemaRegistry, role: iam.IRole): lambda.ISchemaRegistry {
  const config: lambda.KafkaSchemaRegistryConfig = {
    schemaRegistryUri: registry.kind === 'glue' ? registry.registryArn : registry.uri,
    eventRecordFormat:
      (registry.eventRecordFormat ?? 'JSON') === 'JSON'
        ? lambda.EventRecordFormat.JSON
        : lambda.EventRecordFormat.SOURCE,
    schemaValidationConfigs: (registry.validate ?? ['VALUE']).map((attribute) => ({
      attribute:
        attribute === 'KEY'
          ? lambda.KafkaSchemaValidationAttribute.KEY
          : lambda.KafkaSchemaValidationAttribute.VALUE,
    })),
    ...(registry.kind === 'confluent' ? { accessConfigs: confluentAccessConfigs(registry) } : {}),
  };
  if (registry.kind === 'glue') {
    const schemas = glueSchemasArn(registry.registryArn);
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ['glue:GetRegistry'], resources: [registry.registryArn] }),
    );
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['glue:GetSchemaVersion'],
        resources: [registry.registryArn, schemas],
      }),
    );
  } else {
    const secrets = confluentSecrets(registry).map(([, arn]) => arn);
    if (secrets.length > 0) {
      role.addToPrincipalPolicy(
        new iam.PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: secrets }),
      );
    }
  }
  return { bind: () => config };
}

/** The registry's schemas: `arn:aws:glue:<region>:<account>:schema/<registry>/*`. */
export function glueSchemasArn(registryArn: string): string {
  if (!Token.isUnresolved(registryArn)) return registryArn.replace(/:registry\/([^/]+)$/, ':schema/$1/*');
  const parts = Fn.split(':registry/', registryArn, 2);
  return Fn.join('', [Fn.select(0, parts), ':schema/', Fn.select(1, parts), '/*']);
}

function confluentAccessConfigs(registry: ConfluentSchemaRegistry): lambda.KafkaSchemaRegistryAccessConfig[] {
  const type = lambda.KafkaSchemaRegistryAccessConfigType;
  const configs: lambda.KafkaSchemaRegistryAccessConfig[] = [];
  if (registry.basicAuthSecretArn !== undefined)
    configs.push({ type: type.BASIC_AUTH, uri: registry.basicAuthSecretArn });
  if (registry.clientCertificateSecretArn !== undefined) {
    configs.push({ type: type.CLIENT_CERTIFICATE_TLS_AUTH, uri: registry.clientCertificateSecretArn });
  }
  if (registry.serverRootCaSecretArn !== undefined) {
    configs.push({ type: type.SERVER_ROOT_CA_CERTIFICATE, uri: registry.serverRootCaSecretArn });
  }
  return configs;
}
