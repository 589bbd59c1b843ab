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

/** GETs `url` as JSON: a 2xx JSON object of at most 1 MiB, or IssuerUnreachable; null on 404. */
export async function fetchJson(deps: FetchDeps, url: string): Promise<Record<string, unknown> | null> {
  let res: Awaited<ReturnType<typeof fetch>>;
  try {
    res = await fetch(url, {
      headers: { accept: 'application/json' },
      redirect: 'manual',
      dispatcher: deps.dispatcher,
      signal: AbortSignal.timeout(deps.timeoutMs),
    });
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new IssuerUnreachable(`${url}: ${cause?.code ?? cause?.message ?? (err as Error).name}`);
  }
  if (res.status === 404) {
    await res.body?.cancel();
    return null;
  }
  if (res.status < 200 || res.status > 299) {
    await res.body?.cancel();
    throw new IssuerUnreachable(`${url}: HTTP ${res.status}`);
  }
  const text = await readCapped(res, url);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new IssuerUnreachable(`${url}: not JSON`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new IssuerUnreachable(`${url}: not a JSON object`);
  return parsed as Record<string, unknown>;
}

/** The status and JSON object body of a POST of `form`; IssuerUnreachable when no answer or a body that is not a JSON object. */
export async function postForm(
  deps: FetchDeps,
  url: URL,
  form: Record<string, string>,
  headers: Record<string, string>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  let res: Awaited<ReturnType<typeof fetch>>;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { ...headers, accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
      redirect: 'manual',
      dispatcher: deps.dispatcher,
      signal: AbortSignal.timeout(deps.timeoutMs),
    });
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new IssuerUnreachable(`${url.href}: ${cause?.code ?? cause?.message ?? (err as Error).name}`);
  }
  const text = await readCapped(res, url.href);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new IssuerUnreachable(`${url.href}: HTTP ${res.status}, not JSON`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new IssuerUnreachable(`${url.href}: HTTP ${res.status}, not a JSON object`);
  return { status: res.status, body: parsed as Record<string, unknown> };
}

async function readCapped(res: Awaited<ReturnType<typeof fetch>>, url: string): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body ?? []) {
    size += (chunk as Uint8Array).byteLength;
    if (size > MAX_BYTES) throw new IssuerUnreachable(`${url}: larger than ${MAX_BYTES} bytes`);
    chunks.push(Buffer.from(chunk as Uint8Array));
  }
  return Buffer.concat(chunks).toString('utf8');
}
