// Rows in every table of a test database: a refusal test compares them before and after to show
// that nothing was written. rate_windows is left out: it counts requests, refused ones included.
import type postgres from 'postgres';

export async function rowCounts(db: postgres.Sql): Promise<Record<string, number>> {
  const tables = await db<{ name: string }[]>`
    select table_name as name from information_schema.tables
    where table_schema = 'public' and table_type = 'BASE TABLE' and table_name <> 'rate_windows' order by table_name`;
  const counts: Record<string, number> = {};
  for (const { name } of tables) {
    const [row] = await db.unsafe<{ n: number }[]>(`select count(*)::int as n from "${name}"`);
    counts[name] = row!.n;
  }
  return counts;
}
