/**
 * How the consumer's role (and its operators' policy) is allowed to log in to the database:
 * rds-db:connect through aws-cdk-lib's own grantConnect, whatever the database is.
 */
import * as iam from 'aws-cdk-lib/aws-iam';
import { DependencyGroup } from 'constructs';
import type { PostgresDatabase } from './postgres-props.js';

/**
 * rds-db:connect as `user`, through CDK's own grantConnect: the proxy's resource id (prx-...), the
 * cluster's resource identifier (cluster-...) or the instance's (db-...) in
 * `arn:aws:rds-db:<region>:<account>:dbuser:<resource id>/<user>` (docs/aws-facts.md#rds-and-rds-proxy).
 */
export function grantConnect(database: PostgresDatabase, role: iam.IGrantable, user: string): void {
  switch (database.kind) {
    case 'proxy':
      database.proxy.grantConnect(role, user);
      return;
    case 'cluster':
      database.cluster.grantConnect(role, user);
      return;
    case 'instance':
      database.instance.grantConnect(role, user);
      return;
  }
}

/** A grantee that keeps the statements a grant makes, for a managed policy to hold (it is no principal). */
export class StatementCollector extends iam.PrincipalBase {
  public readonly statements: iam.PolicyStatement[] = [];
  public readonly policyFragment = new iam.PrincipalPolicyFragment({});

  public override addToPrincipalPolicy(statement: iam.PolicyStatement): iam.AddToPrincipalPolicyResult {
    this.statements.push(statement);
    // Nothing to wait for: the statements join a managed policy made after them.
    return { statementAdded: true, policyDependable: new DependencyGroup() };
  }

  public dedupeString(): string | undefined {
    return undefined;
  }
}
