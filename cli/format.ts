// Plain-text layouts for human output: aligned columns and key/value lists. No colours, so that
// the output reads the same in a terminal, a pipe and a log.

type Cell = string | number | boolean | null | undefined;

function text(value: Cell): string {
  return value === null || value === undefined || value === '' ? '-' : String(value);
}

export function table(headers: readonly string[], rows: readonly (readonly Cell[])[]): string {
  const cells = [headers.map(String), ...rows.map((row) => row.map(text))];
  const widths = headers.map((_, i) => Math.max(...cells.map((row) => row[i]?.length ?? 0)));
  return cells.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')).join('\n');
}

export function keyValues(entries: Record<string, Cell>): string {
  const width = Math.max(...Object.keys(entries).map((k) => k.length));
  return Object.entries(entries)
    .map(([k, v]) => `${`${k}:`.padEnd(width + 1)}  ${text(v)}`)
    .join('\n');
}
