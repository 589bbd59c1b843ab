// One postgres.js pool per daemon. The application_name carries the daemon's instance id so that
// /metrics can report this pool's connections from pg_stat_activity.
import postgres from 'postgres';

export type Sql = postgres.Sql<Record<string, never>>;
export type Tx = postgres.TransactionSql<Record<string, never>>;

export function connect(url: string, options: { max: number; instanceId: string }): Sql {
  return postgres(url, {
    max: options.max,
    idle_timeout: 60,
    connect_timeout: 10,
    // postgres.js waits up to 20 s before a connection attempt after repeated failures, and a query
    // waits with it: after an outage the first requests and the dead-letter replay would too.
    backoff: (retries: number) => (0.5 + Math.random() / 2) * Math.min(3 ** retries / 100, 1),
    onnotice: () => {},
    connection: { application_name: `gatewayd:${options.instanceId}` },
  }) as unknown as Sql;
}
