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
    onnotice: () => {},
    connection: { application_name: `gatewayd:${options.instanceId}` },
  }) as unknown as Sql;
}
