// The gateway's version: package.json's, read once (dist/daemon/version.js sits two levels below it).
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

function readVersion(): string {
  try {
    const pkg = JSON.parse(fs.readFileSync(fileURLToPath(new URL('../../package.json', import.meta.url)), 'utf8')) as { version?: unknown };
    return typeof pkg.version === 'string' ? pkg.version : 'unknown';
  } catch {
    return 'unknown';
  }
}

export const GATEWAY_VERSION = readVersion();
