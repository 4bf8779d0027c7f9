import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OPERATOR_ACTIONS } from '../../../lib/operator-policy.js';

const OPERATOR_SOURCES = join(import.meta.dirname, '..', '..', '..', 'operator');

/**
 * The IAM actions each SDK command needs (https://docs.aws.amazon.com/service-authorization/latest/reference/).
 * A transaction needs the action of each of its parts; the DynamoDB document client's commands are named
 * after the item operations (Get, Put, ...).
 */
const ACTIONS_OF_COMMAND: Readonly<Record<string, readonly string[]>> = {
  QueryCommand: ['dynamodb:Query'],
  ScanCommand: ['dynamodb:Scan'],
  GetCommand: ['dynamodb:GetItem'],
  GetItemCommand: ['dynamodb:GetItem'],
  PutCommand: ['dynamodb:PutItem'],
  PutItemCommand: ['dynamodb:PutItem'],
  UpdateCommand: ['dynamodb:UpdateItem'],
  UpdateItemCommand: ['dynamodb:UpdateItem'],
  DeleteCommand: ['dynamodb:DeleteItem'],
  DeleteItemCommand: ['dynamodb:DeleteItem'],
  TransactWriteCommand: ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
  InvokeCommand: ['lambda:InvokeFunction'],
  GetFunctionConfigurationCommand: ['lambda:GetFunctionConfiguration'],
  ListObjectsV2Command: ['s3:ListBucket'],
  GetObjectCommand: ['s3:GetObject'],
  HeadObjectCommand: ['s3:GetObject'],
  DescribeStacksCommand: ['cloudformation:DescribeStacks'],
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => join(dir, name));
}

describe('the operator policy and the tool agree', () => {
  it('grants an action for every AWS command msk-inbox sends', () => {
    const granted = new Set<string>(Object.values(OPERATOR_ACTIONS).flat());
    const sent = new Map<string, string>();
    for (const file of sourceFiles(OPERATOR_SOURCES)) {
      for (const [, command] of readFileSync(file, 'utf8').matchAll(/new (\w+Command)\(/g)) {
        sent.set(command as string, relative(OPERATOR_SOURCES, file));
      }
    }
    expect(sent.size, 'the tool sends commands').toBeGreaterThan(3);
    for (const [command, file] of sent) {
      const actions = ACTIONS_OF_COMMAND[command];
      expect(
        actions,
        `${command} (${file}): which IAM actions does it need? add it here and to OPERATOR_ACTIONS`,
      ).toBeDefined();
      for (const action of actions ?? []) {
        expect(
          granted.has(action),
          `${command} (${file}) needs ${action}, which OPERATOR_ACTIONS lacks`,
        ).toBe(true);
      }
    }
  });

  it('grants nothing the tool never sends', () => {
    const needed = new Set<string>();
    for (const file of sourceFiles(OPERATOR_SOURCES)) {
      for (const [, command] of readFileSync(file, 'utf8').matchAll(/new (\w+Command)\(/g)) {
        for (const action of ACTIONS_OF_COMMAND[command as string] ?? []) needed.add(action);
      }
    }
    const granted = Object.values(OPERATOR_ACTIONS).flat();
    expect(granted.filter((action) => !needed.has(action))).toEqual([]);
  });
});
