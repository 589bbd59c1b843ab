// A webhook receiver on 127.0.0.1 (node:http), as a subscriber would run one: it verifies every
// delivery's Standard Webhooks signature itself (node:crypto, not the daemon's signing code), and
// records each request in arrival order, so tests can look for order, duplicates and bad
// signatures. Each path is one endpoint with its own secret and its own answers.
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { Test } from 'tap';
import { listenOnLoopback } from './ports.js';

export interface Received {
  readonly path: string;
  readonly id: string;
  readonly timestamp: string;
  readonly signature: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly raw: string;
  // biome-ignore lint/suspicious/noExplicitAny: the parsed body of any event; tests read it by path
  readonly body: any;
  /** The signature checked against the path's secret (false when no secret was set for it). */
  readonly verified: boolean;
  /** What the receiver answered (null: it never answered). */
  readonly answered: number | null;
}

/** What an endpoint answers to its n-th request (0-based): a status, or 'hang' to never answer. */
export type Answer = (n: number) => number | 'hang';

export interface Receiver {
  readonly base: string;
  /** The endpoint `path` (`/name`): its URL. */
  url(path: string): string;
  secret(path: string, secret: string): void;
  answer(path: string, answer: Answer): void;
  received(path?: string): Received[];
  /** Webhook ids received more than once on `path` and answered 2xx more than once. */
  duplicates(path?: string): string[];
}

/** The Standard Webhooks check, as the README shows it. */
export function verifySignature(secret: string, id: string, timestamp: string, body: string, header: string): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = Buffer.from(createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64'));
  return header.split(' ').some((part) => {
    const [version, sig] = part.split(',');
    const given = Buffer.from(sig ?? '');
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
}

export async function startReceiver(t: Test): Promise<Receiver> {
  const secrets = new Map<string, string>();
  const answers = new Map<string, Answer>();
  const counts = new Map<string, number>();
  const log: Received[] = [];
  let base = '';
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      const raw = Buffer.concat(chunks).toString('utf8');
      const n = counts.get(path) ?? 0;
      counts.set(path, n + 1);
      const answer = (answers.get(path) ?? (() => 204))(n);
      const id = String(req.headers['webhook-id'] ?? '');
      const timestamp = String(req.headers['webhook-timestamp'] ?? '');
      const signature = String(req.headers['webhook-signature'] ?? '');
      const secret = secrets.get(path);
      let body: unknown = null;
      try {
        body = JSON.parse(raw);
      } catch {
        body = null;
      }
      log.push({
        path,
        id,
        timestamp,
        signature,
        headers: req.headers,
        raw,
        body,
        verified: secret !== undefined && verifySignature(secret, id, timestamp, raw, signature),
        answered: answer === 'hang' ? null : answer,
      });
      if (answer === 'hang') return; // never answered: the connection is cut when the test ends
      // A redirect points at the receiver's /redirected: a client that followed it would show there.
      res.writeHead(answer, { 'content-type': 'text/plain', ...(answer >= 300 && answer < 400 ? { location: `${base}/redirected` } : {}) });
      res.end('ok');
    });
  });
  base = `http://127.0.0.1:${await listenOnLoopback(t, server)}`;
  const received = (path?: string) => log.filter((r) => path === undefined || r.path === path);
  return {
    base,
    url: (path) => base + path,
    secret: (path, secret) => void secrets.set(path, secret),
    answer: (path, answer) => void answers.set(path, answer),
    received,
    duplicates(path) {
      const seen = new Map<string, number>();
      for (const r of received(path)) if (r.answered !== null && r.answered < 300) seen.set(r.id, (seen.get(r.id) ?? 0) + 1);
      return [...seen].filter(([, n]) => n > 1).map(([id]) => id);
    },
  };
}
