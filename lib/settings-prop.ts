/**
 * The KafkaConsumer's `settings` prop checked against the handler's own bounds and rules (their one
 * definition is lambdas/core/settings.ts), each problem named as the prop to change.
 */
import {
  crossSettingProblems,
  HANDLER_SETTINGS,
  readHandlerSettings,
  type SettingDefinition,
  type SettingName,
  settingProblem,
  settingsEnvironment,
} from '../lambdas/core/settings.js';
import type { KafkaConsumerProps } from './kafka-consumer-props.js';

/** Settings the construct's own typed props carry: `settings` may not set them too. */
const SETTINGS_FROM_PROPS: Partial<Record<SettingName, keyof KafkaConsumerProps>> = {
  dedupTtlSeconds: 'dedupTtl',
  deadlineMarginMs: 'deadlineMargin',
  partitionConcurrency: 'partitionConcurrency',
};

/** The `settings` prop against the handler's own bounds and rules, named as props. */
export function settingsProblems(props: Pick<KafkaConsumerProps, 'settings'>): string[] {
  const given = Object.entries(props.settings ?? {}).filter(([, value]) => value !== undefined) as [
    SettingName,
    string | number,
  ][];
  const problems: string[] = [];
  for (const [name, value] of given) {
    const definition: SettingDefinition | undefined = HANDLER_SETTINGS[name];
    if (definition === undefined || definition.setByConstruct) {
      problems.push(`settings.${name} is not a setting you can set: remove it`);
      continue;
    }
    const fromProp = SETTINGS_FROM_PROPS[name];
    if (fromProp !== undefined) {
      problems.push(`settings.${name} is the ${fromProp} prop: set ${fromProp} instead`);
      continue;
    }
    const problem = settingProblem(name, value);
    if (problem) problems.push(`settings.${name}: ${problem}`);
  }
  const env = settingsEnvironment(Object.fromEntries(given));
  const { settings } = readHandlerSettings({ INBOX_TABLE_NAME: 'x', CONSUMER_NAME: 'x', ...env });
  problems.push(...crossSettingProblems(settings, new Set(given.map(([name]) => name))));
  return problems;
}
