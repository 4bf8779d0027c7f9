/**
 * Where ConsumerMonitoring's and RelayMonitoring's alarms notify, and the checks of the props both take:
 * the topic passed or one of their own, an email subscription, and the SNS actions on ALARM and on OK.
 */
import { Token, Validations } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Construct } from 'constructs';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Each threshold that is not a number above 0, by its prop's name. */
export function positiveProblems(thresholds: Readonly<Record<string, number>>): string[] {
  return Object.entries(thresholds)
    .filter(([, value]) => !(Number.isFinite(value) && value > 0))
    .map(([name, value]) => `${name} is ${value}: set a number above 0`);
}

export function alarmEmailProblems(email: string | undefined): string[] {
  return email === undefined || Token.isUnresolved(email) || EMAIL.test(email)
    ? []
    : [`alarmEmail "${email}" is not an email address`];
}

/**
 * The topic given, or a new one in `scope` (`AlarmTopic`), with `email` subscribed to it. A new topic is
 * unencrypted on purpose: notifications carry alarm names and states, no record data, and CloudWatch
 * cannot publish to a topic under the AWS-managed SNS key. Pass a topic for one with your own key.
 */
export function alarmTopic(
  scope: Construct,
  given: sns.ITopic | undefined,
  displayName: string,
  email: string | undefined,
): sns.ITopic {
  const topic = given ?? new sns.Topic(scope, 'AlarmTopic', { enforceSSL: true, displayName });
  if (email !== undefined) {
    const subscription = topic.addSubscription(new subscriptions.EmailSubscription(email));
    Validations.of(subscription).acknowledge({
      id: 'Serverless-SNSRedrivePolicy',
      reason:
        'An email subscription: SNS retries email delivery itself, and the alarm state stays in CloudWatch; a dead-letter queue would hold notifications nobody reads.',
    });
  }
  return topic;
}

/** Adds the topic to an alarm's actions, on ALARM and on OK, and returns the alarm. */
export function notifying(topic: sns.ITopic): (alarm: cloudwatch.Alarm) => cloudwatch.Alarm {
  return (alarm) => {
    alarm.addAlarmAction(new actions.SnsAction(topic));
    alarm.addOkAction(new actions.SnsAction(topic));
    return alarm;
  };
}
