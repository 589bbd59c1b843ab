// The web console's built files (dist/console/, written by `npm run build`: scripts/build-console.mjs),
// served under /console with a strict Content-Security-Policy. Only the names in FILES exist: a
// request for anything else, a path with `..` included, is 404, so nothing outside is reachable.
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { GatewayError } from '../../shared/errors.js';

/** Where the build writes the console: dist/console beside dist/daemon. */
export const CONSOLE_DIR = new URL('../../console/', import.meta.url);

const FILES: Readonly<Record<string, string>> = {
  'index.html': 'text/html; charset=utf-8',
  'console.js': 'text/javascript; charset=utf-8',
  'console.css': 'text/css; charset=utf-8',
};

/**
 * Scripts and styles only from the gateway itself, never inline; no plugins, frames or base
 * rewriting; no page may frame the console; DOM sinks that parse HTML refuse plain strings.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
].join('; ');

export const CONSOLE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CONSOLE_CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  // Revalidated on every load (the names are fixed), answered 304 while the ETag still matches.
  'Cache-Control': 'no-cache',
};

interface ConsoleFile {
  readonly body: Buffer;
  readonly type: string;
  readonly etag: string;
}

export class ConsoleFiles {
  private readonly loaded = new Map<string, Promise<ConsoleFile | null>>();

  constructor(private readonly dir: URL = CONSOLE_DIR) {}

  /** The file a path under /console names ('' is index.html), or null when there is no such file. */
  async find(name: string): Promise<ConsoleFile | null> {
    const file = name === '' ? 'index.html' : name;
    const type = Object.hasOwn(FILES, file) ? FILES[file]! : null;
    if (type === null) return null;
    let entry = this.loaded.get(file);
    if (!entry) {
      entry = fs.readFile(new URL(file, this.dir)).then(
        (body) => ({ body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` }),
        () => null, // not built: 404, tried again on the next request
      );
      this.loaded.set(file, entry);
      const settled = await entry;
      if (settled === null) this.loaded.delete(file);
      return settled;
    }
    return entry;
  }

  /** Writes the file with the console's headers (304 when the browser's copy is current); 404 when unknown. */
  async serve(name: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const file = await this.find(name);
    if (!file) throw new GatewayError('not_found', 'No such console file.');
    for (const [header, value] of Object.entries(CONSOLE_HEADERS)) res.setHeader(header, value);
    res.setHeader('ETag', file.etag);
    if (req.headers['if-none-match'] === file.etag) {
      res.statusCode = 304;
      res.end();
      return;
    }
    res.statusCode = 200;
    res.setHeader('Content-Type', file.type);
    res.setHeader('Content-Length', file.body.length);
    res.end(file.body);
  }
}
