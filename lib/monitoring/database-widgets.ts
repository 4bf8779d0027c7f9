/**
 * The Postgres database's own health on a consumer's dashboard, beside the handler's (unchanged) metrics:
 * the proxy's connections and latency, or the cluster's or instance's connections, CPU and (Aurora)
 * deadlocks. Names and namespaces: docs/aws-facts.md#rds-and-rds-proxy.
 */
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as rds from 'aws-cdk-lib/aws-rds';
import type { PostgresDatabase } from '../postgres-props.js';
import { PERIOD } from './consumer-metrics.js';

/** RDS Proxy publishes its metrics in AWS/RDS; `ProxyName` alone aggregates every endpoint and target. */
export const PROXY_METRICS = {
  clientConnections: 'ClientConnections',
  databaseConnections: 'DatabaseConnections',
  queryDatabaseResponseLatency: 'QueryDatabaseResponseLatency',
} as const;

/** Aurora publishes these per instance and aggregated by `DBClusterIdentifier`; `Deadlocks` is per second. */
export const CLUSTER_METRICS = {
  databaseConnections: 'DatabaseConnections',
  cpuUtilization: 'CPUUtilization',
  deadlocks: 'Deadlocks',
} as const;

function graph(title: string, left: cloudwatch.IMetric[]): cloudwatch.GraphWidget {
  return new cloudwatch.GraphWidget({ title, left, width: 8, height: 6, period: PERIOD });
}

function proxyMetric(proxy: rds.IDatabaseProxy, metricName: string, statistic: string): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace: 'AWS/RDS',
    metricName,
    dimensionsMap: { ProxyName: proxy.dbProxyName },
    statistic,
    period: PERIOD,
  });
}

/** One row of widgets for the database the consumer's inbox is in. */
export function databaseWidgets(database: PostgresDatabase): cloudwatch.IWidget[] {
  switch (database.kind) {
    case 'proxy': {
      const { proxy } = database;
      // The proxy publishes per underlying host: the connections of one proxy are their sum.
      return [
        graph('RDS Proxy: connections', [
          proxyMetric(proxy, PROXY_METRICS.clientConnections, 'Sum'),
          proxyMetric(proxy, PROXY_METRICS.databaseConnections, 'Sum'),
        ]),
        graph('RDS Proxy: database response latency (µs)', [
          proxyMetric(proxy, PROXY_METRICS.queryDatabaseResponseLatency, 'Average'),
          proxyMetric(proxy, PROXY_METRICS.queryDatabaseResponseLatency, 'Maximum'),
        ]),
      ];
    }
    case 'cluster': {
      const { cluster } = database;
      return [
        graph('Aurora: connections', [
          cluster.metricDatabaseConnections({ period: PERIOD, statistic: 'Maximum' }),
        ]),
        graph('Aurora: CPU (%)', [cluster.metricCPUUtilization({ period: PERIOD, statistic: 'Maximum' })]),
        graph('Aurora: deadlocks (per second)', [
          cluster.metric(CLUSTER_METRICS.deadlocks, { period: PERIOD, statistic: 'Average' }),
        ]),
      ];
    }
    case 'instance': {
      // RDS for PostgreSQL instances publish no Deadlocks metric (Aurora's only).
      const { instance } = database;
      return [
        graph('RDS: connections', [
          instance.metricDatabaseConnections({ period: PERIOD, statistic: 'Maximum' }),
        ]),
        graph('RDS: CPU (%)', [instance.metricCPUUtilization({ period: PERIOD, statistic: 'Maximum' })]),
      ];
    }
  }
}
