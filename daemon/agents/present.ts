// The agent record as the API shows it: every stored field except the project, timestamps as
// ISO strings, counters as numbers, today's request count reset when the day has turned.
import type { AgentStatus } from './lifecycle.js';

export interface AgentRow {
  id: string;
  project_id: string;
  status: AgentStatus;
  risk_classification: string | null;
  created_at: Date;
  updated_at: Date;
  status_changed_at: Date;
  last_seen_at: Date | null;
  request_count: string;
  requests_day: Date | string | null;
  requests_today: number;
  [column: string]: unknown;
}

export type AgentRecord = Record<string, unknown> & { id: string; status: AgentStatus };

function today(): string {
  return new Date().toISOString().slice(0, 10);
}

function dayOf(value: Date | string | null): string | null {
  if (value === null) return null;
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  return value.slice(0, 10);
}

export function presentAgent(row: AgentRow): AgentRecord {
  const { project_id: _project, requests_day: day, request_count: count, requests_today: todayCount, ...rest } = row;
  return {
    ...rest,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    status_changed_at: row.status_changed_at.toISOString(),
    last_seen_at: row.last_seen_at?.toISOString() ?? null,
    request_count: Number(count),
    requests_today: dayOf(day) === today() ? todayCount : 0,
  };
}
