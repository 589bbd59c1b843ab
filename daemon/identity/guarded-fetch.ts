// Reads a small JSON document from the issuer (its metadata, its keys) through the outbound address
// guard every upstream call uses (the dispatcher app.ts builds with createUpstreamDispatcher): no
// redirects followed, a deadline, a size cap. Failures are IssuerUnreachable with a short reason.
import { type Dispatcher, fetch } from 'undici';

/** The issuer could not be read; `reason` is safe to show a client (no addresses beyond the URL's host). */
export class IssuerUnreachable extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'IssuerUnreachable';
  }
}

export interface FetchDeps {
  /** From createUpstreamDispatcher: the address guard on every connection. */
  readonly dispatcher: Dispatcher;
  readonly timeoutMs: number;
}

const MAX_BYTES = 1024 * 1024;

type Answer = Awaited<ReturnType<typeof fetch>>;

async function send(
  deps: FetchDeps,
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string },
): Promise<Answer> {
  try {
    return await fetch(url, {
      ...init,
      headers: { accept: 'application/json', ...init.headers },
      redirect: 'manual',
      dispatcher: deps.dispatcher,
      signal: AbortSignal.timeout(deps.timeoutMs),
    });
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new IssuerUnreachable(`${url}: ${cause?.code ?? cause?.message ?? (err as Error).name}`);
  }
}

/**
 * POSTs a form to `url` (a token endpoint) and reads its JSON object answer, whatever the status:
 * RFC 6749 errors are 400 JSON. IssuerUnreachable when there is no JSON object to read.
 */
export async function postForm(
  deps: FetchDeps,
  url: string,
  form: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await send(deps, url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  });
  return { status: res.status, body: objectOf(await readCapped(res, url), url) };
}

/** GETs `url` as JSON: a 2xx JSON object of at most 1 MiB, or IssuerUnreachable; null on 404. */
export async function fetchJson(deps: FetchDeps, url: string): Promise<Record<string, unknown> | null> {
  const res = await send(deps, url, {});
  if (res.status === 404) {
    await res.body?.cancel();
    return null;
  }
  if (res.status < 200 || res.status > 299) {
    await res.body?.cancel();
    throw new IssuerUnreachable(`${url}: HTTP ${res.status}`);
  }
  return objectOf(await readCapped(res, url), url);
}

function objectOf(text: string, url: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new IssuerUnreachable(`${url}: not JSON`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new IssuerUnreachable(`${url}: not a JSON object`);
  return parsed as Record<string, unknown>;
}

async function readCapped(res: Answer, url: string): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body ?? []) {
    size += (chunk as Uint8Array).byteLength;
    if (size > MAX_BYTES) throw new IssuerUnreachable(`${url}: larger than ${MAX_BYTES} bytes`);
    chunks.push(Buffer.from(chunk as Uint8Array));
  }
  return Buffer.concat(chunks).toString('utf8');
}
