// The one line gatewayd prints for a person when it runs in a terminal and is ready: where it
// listens, which database it uses (never its password), where the admin token is and what to do
// next. The JSON logs carry the same facts for machines; this is for whoever just typed `npm start`
// in a checkout, where gatewayctl runs as `npx gatewayctl` (the README's first steps say the same).
import fs from 'node:fs';
import path from 'node:path';

/** How the next step runs gatewayctl: as README's first steps do, from the checkout. */
export const GATEWAYCTL = 'npx gatewayctl';

export interface ReadyFacts {
  readonly url: string;
  /** DATABASE_URL, or undefined for the embedded database. */
  readonly databaseUrl: string | undefined;
  readonly dataDir: string;
}

/** The database as a person may see it: host, port and name, or the embedded one's directory. */
export function databaseLabel(databaseUrl: string | undefined, dataDir: string): string {
  if (databaseUrl === undefined) return `embedded PostgreSQL in ${path.join(dataDir, 'pg')}`;
  try {
    const u = new URL(databaseUrl);
    return `PostgreSQL at ${u.hostname}${u.port ? `:${u.port}` : ''}/${decodeURIComponent(u.pathname.slice(1)) || '(default database)'}`;
  } catch {
    return 'PostgreSQL (DATABASE_URL)';
  }
}

export function readyLine(f: ReadyFacts, tokenFileExists: (file: string) => boolean = fs.existsSync): string {
  const tokenFile = path.join(f.dataDir, 'admin.token');
  const token = tokenFileExists(tokenFile)
    ? `admin token in ${tokenFile}; next: ${GATEWAYCTL} login --url ${f.url} --token - < ${tokenFile}`
    : `no admin token file in ${f.dataDir} (created on the first start only); next: ${GATEWAYCTL} login --url ${f.url} --token -`;
  return `gatewayd ready: listening on ${f.url}, database: ${databaseLabel(f.databaseUrl, f.dataDir)}, ${token}`;
}
