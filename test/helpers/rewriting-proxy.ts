// A proxy in front of a daemon that rewrites the JSON answers of one route: a server (or a path to
// it) that lies, for tests of what a client checks itself. Everything else passes through unchanged.
import http from 'node:http';
import type { Test } from 'tap';
import { listenOnLoopback } from './ports.js';

// biome-ignore lint/suspicious/noExplicitAny: a rewrite edits any field of a parsed JSON answer
export type Rewrite = (answer: any) => any;

export interface RewritingProxy {
  readonly url: string;
  /** What later answers of the route are passed through; the identity until set. */
  rewrite: Rewrite;
}

export async function startRewritingProxy(t: Test, target: string, route: string): Promise<RewritingProxy> {
  const state: RewritingProxy = { url: '', rewrite: (r) => r };
  const proxy = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const upstream = await fetch(target + req.url, {
      method: req.method,
      body: req.method === 'GET' ? undefined : Buffer.concat(chunks),
      headers: { authorization: String(req.headers.authorization ?? ''), 'content-type': 'application/json' },
    });
    let text = await upstream.text();
    if (req.url === route && upstream.status === 200) text = JSON.stringify(state.rewrite(JSON.parse(text)));
    res.writeHead(upstream.status, { 'content-type': 'application/json' });
    res.end(text);
  });
  const port = await listenOnLoopback(t, proxy);
  return Object.assign(state, { url: `http://127.0.0.1:${port}` });
}
