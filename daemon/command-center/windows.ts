// The time windows of the command center. A window is made of its timeline points and aligned to
// them (UTC): the last point is the current, still running one, and the previous window is the same
// number of points just before. A point holds whole counter buckets: `coarsest` is the largest
// grain of counters its timeline may read.
import type { CcRange } from '../../shared/command-center-schemas.js';
import type { Grain } from '../ledger/counters.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

interface RangeSpec {
  readonly coarsest: Grain;
  readonly pointMs: number;
  readonly points: number;
  readonly label: (d: Date) => string;
}

const hhmm = (d: Date): string => d.toISOString().slice(11, 16);
const mmdd = (d: Date): string => d.toISOString().slice(5, 10);

export const RANGE_SPECS: Readonly<Record<CcRange, RangeSpec>> = {
  '1h': { coarsest: 'minute', pointMs: MINUTE, points: 60, label: hhmm },
  '6h': { coarsest: 'minute', pointMs: 5 * MINUTE, points: 72, label: hhmm },
  '24h': { coarsest: 'hour', pointMs: HOUR, points: 24, label: hhmm },
  '7d': { coarsest: 'hour', pointMs: 6 * HOUR, points: 28, label: (d) => `${mmdd(d)} ${hhmm(d)}` },
  '30d': { coarsest: 'day', pointMs: DAY, points: 30, label: mmdd },
};

export interface Window {
  readonly range: CcRange;
  readonly coarsest: Grain;
  readonly pointMs: number;
  readonly points: number;
  readonly start: Date;
  /** Exclusive: the end of the current point. */
  readonly end: Date;
  readonly previousStart: Date;
  readonly now: Date;
}

export function windowOf(range: CcRange, now: Date): Window {
  const spec = RANGE_SPECS[range];
  const ms = now.getTime();
  const end = ms - (ms % spec.pointMs) + spec.pointMs;
  const start = end - spec.points * spec.pointMs;
  return {
    range,
    coarsest: spec.coarsest,
    pointMs: spec.pointMs,
    points: spec.points,
    start: new Date(start),
    end: new Date(end),
    previousStart: new Date(start - spec.points * spec.pointMs),
    now,
  };
}

export function pointLabel(w: Window, index: number): { label: string; start: string } {
  const at = new Date(w.start.getTime() + index * w.pointMs);
  return { label: RANGE_SPECS[w.range].label(at), start: at.toISOString() };
}

/** The anomaly windows: the last 60 minutes (minute counters) and the 7 days of whole hours before them. */
export function anomalyWindows(now: Date): { recentStart: Date; baselineStart: Date; baselineEnd: Date; baselineHours: number } {
  const ms = now.getTime();
  const recentStart = ms - (ms % MINUTE) - 59 * MINUTE;
  const baselineEnd = recentStart - (recentStart % HOUR);
  const baselineHours = 7 * 24;
  return {
    recentStart: new Date(recentStart),
    baselineStart: new Date(baselineEnd - baselineHours * HOUR),
    baselineEnd: new Date(baselineEnd),
    baselineHours,
  };
}

/** The UTC calendar month of `now` up to the end of the current hour: what the contract counts. */
export function monthOf(now: Date): { start: Date; until: Date; dayOfMonth: number } {
  const ms = now.getTime();
  return {
    start: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)),
    until: new Date(ms - (ms % HOUR) + HOUR),
    dayOfMonth: now.getUTCDate(),
  };
}
