/**
 * The handler's settings as the KafkaConsumer gives them (its typed props, then its `settings` prop),
 * judged at synth by the handler's own check (lambdas/core/settings.ts#checkSettings), each problem named
 * as the prop to change.
 */
import { Token } from 'aws-cdk-lib';
import {
  checkSettings,
  HANDLER_SETTINGS,
  type HandlerSettings,
  type SettingDefinition,
  type SettingName,
  type StoreKind,
} from '../lambdas/core/settings.js';
import type { KafkaConsumerProps, ResolvedSettings } from './kafka-consumer-props.js';

/** Is one of KafkaConsumer's props: a name the settings table gives (`prop`) that is not fails the build. */
type KafkaConsumerProp<P extends keyof KafkaConsumerProps> = P;
/** The props that carry a setting, as the settings table names them. */
export type SettingCarryingProp = KafkaConsumerProp<
  {
    [K in SettingName]: (typeof HANDLER_SETTINGS)[K] extends { readonly prop: infer P } ? P : never;
  }[SettingName]
>;

/** The settings the handler gets from this construct: its typed props, then `settings`. */
export function handlerSettingsOf(props: KafkaConsumerProps, s: ResolvedSettings): Partial<HandlerSettings> {
  return {
    ...(props.inboxTable === undefined ? {} : { inboxTableName: props.inboxTable.tableName }),
    ...(props.outbox === undefined ? {} : { outboxTableName: props.outbox.tableName }),
    consumerName: props.consumerName,
    consumerGroupId: props.consumerGroupId,
    dedupTtlSeconds: s.dedupTtl.toSeconds({ integral: false }),
    deadlineMarginMs: s.deadlineMargin.toMilliseconds(),
    ...(props.partitionConcurrency === undefined ? {} : { partitionConcurrency: props.partitionConcurrency }),
    ...props.settings,
  };
}

/**
 * A setting named as the construct's user sets it: `settings.x`, or the prop that carries it, with the
 * variable when the prop's value is converted for it (a Duration's milliseconds are shown, not the Duration).
 */
function propNaming(name: SettingName): string {
  const definition: SettingDefinition = HANDLER_SETTINGS[name];
  if (definition.prop === undefined) return `settings.${name}`;
  return definition.prop === name ? name : `${definition.prop} (as ${definition.env})`;
}

/**
 * Everything the handler would refuse in the settings this construct gives it: a key `settings` may not
 * carry (typed out of TunableSettings, refused here for JavaScript callers), then the one check of the
 * whole set, as the handler will read it at its cold start.
 */
export function settingsProblems(props: KafkaConsumerProps, s: ResolvedSettings): string[] {
  const refused: string[] = [];
  const tunable = Object.entries(props.settings ?? {}).filter(([name, value]) => {
    if (value === undefined) return false;
    if (!Object.hasOwn(HANDLER_SETTINGS, name)) {
      refused.push(`settings.${name} is not a setting: remove it`);
      return false;
    }
    const definition: SettingDefinition = HANDLER_SETTINGS[name as SettingName];
    if (definition.prop === undefined) return true;
    refused.push(`settings.${name} comes from the ${definition.prop} prop: set ${definition.prop} instead`);
    return false;
  });
  // Every problem at once: the rest of `settings` is judged too, without the keys refused above.
  const checked = { ...props, settings: Object.fromEntries(tunable) };
  const given: Partial<Record<SettingName, string | number>> = {};
  for (const [name, value] of Object.entries(handlerSettingsOf(checked, s)) as [
    SettingName,
    string | number,
  ][]) {
    given[name] = Token.isUnresolved(value) ? standIn(name) : value;
  }
  // Without a DynamoDB inbox no table name is required; a missing inbox is validate()'s one line.
  const store: StoreKind = props.inboxTable === undefined ? 'other' : 'dynamodb';
  return [...refused, ...checkSettings(given, propNaming, store).problems];
}

/**
 * A value known only at deploy time (the inbox table's name) cannot be judged at synth: the default
 * stands in for it, or text every text setting's pattern accepts.
 */
function standIn(name: SettingName): string | number {
  const definition: SettingDefinition = HANDLER_SETTINGS[name];
  return 'default' in definition && definition.default !== undefined ? definition.default : 'deploy-time';
}
