// gatewayd's one human line when it runs in a terminal (daemon/ready-line.ts): the line itself, and
// that a real terminal (tmux) gets it while a service manager's pipe does not.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { databaseLabel, GATEWAYCTL, readyLine } from '../daemon/ready-line.js';
import { freshDatabase } from './helpers/db.js';
import { eventually } from './helpers/eventually.js';
import { spawnDaemon } from './helpers/spawn-daemon.js';

t.test('the line names where it listens, the database without its password, the token file and the next command', async (t) => {
  const line = readyLine(
    {
      url: 'http://127.0.0.1:8080',
      databaseUrl: 'postgres://gw:s3cret-pw@db.internal:5433/gateway?sslmode=require',
      dataDir: '/var/lib/gw',
    },
    () => true,
  );
  t.equal(
    line,
    'gatewayd ready: listening on http://127.0.0.1:8080, database: PostgreSQL at db.internal:5433/gateway, admin token in /var/lib/gw/admin.token; '
      + 'next: npx gatewayctl login --url http://127.0.0.1:8080 --token - < /var/lib/gw/admin.token',
  );
  t.notMatch(line, /s3cret|gw:/, 'never the credentials');
  t.equal(databaseLabel(undefined, '/var/lib/gw'), 'embedded PostgreSQL in /var/lib/gw/pg');
  t.equal(databaseLabel('not a url', '/x'), 'PostgreSQL (DATABASE_URL)');
  t.match(
    readyLine({ url: 'http://h:1', databaseUrl: undefined, dataDir: '/d' }, () => false),
    /no admin token file in \/d/,
  );
});

t.test("the next step runs gatewayctl the way README's first steps do", async (t) => {
  const readme = await fs.readFile(path.join(path.dirname(new URL(import.meta.url).pathname), '../../README.md'), 'utf8');
  const firstSteps = readme.slice(readme.indexOf('## First steps'));
  t.match(firstSteps, `\n${GATEWAYCTL} login --url`, 'README logs in with it');
  t.match(readme.replace(/\s+/g, ' '), `next: ${GATEWAYCTL} login --url`, "README quotes the ready line's next step");
  t.match(
    readyLine({ url: 'http://h:1', databaseUrl: undefined, dataDir: '/d' }, () => true),
    `next: ${GATEWAYCTL} login`,
  );
});

t.test('in a terminal gatewayd prints the line; through a pipe (a service manager) it does not', async (t) => {
  const url = await freshDatabase(t);
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'gw-ready-'));
  // Removed last (teardowns run last-registered first): retried while the daemon tmux hung up may still be writing.
  t.teardown(() => fs.rm(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 }));
  const piped = spawnDaemon({ DATABASE_URL: url, GATEWAY_DATA_DIR: dir });
  await piped.url;
  piped.child.kill('SIGTERM');
  await piped.exit;
  t.notMatch(piped.stderr(), /gatewayd ready/, 'no human line without a terminal');

  const session = `gw-ready-${process.pid}`;
  const bin = path.resolve('dist/daemon/main.js');
  const env = `DATABASE_URL='${url}' GATEWAY_DATA_DIR='${dir}' GATEWAY_LISTEN=127.0.0.1:0`;
  execFileSync('tmux', ['new-session', '-d', '-s', session, '-x', '250', '-y', '50', `env ${env} ${process.execPath} ${bin} > /dev/null`]);
  t.teardown(() => {
    try {
      execFileSync('tmux', ['kill-session', '-t', session]);
    } catch {
      /* already gone */
    }
  });
  let screen = '';
  const shown = await eventually(() => {
    screen = execFileSync('tmux', ['capture-pane', '-p', '-J', '-t', session], { encoding: 'utf8' });
    return screen.includes('gatewayd ready');
  }, 30_000);
  t.ok(shown, `the terminal shows the line:\n${screen}`);
  t.match(
    screen.replace(/\n/g, ''),
    new RegExp(`admin token in ${dir}/admin.token; next: npx gatewayctl login --url http://127.0.0.1:\\d+ --token -`),
  );
  t.notMatch(screen, /"level"/, 'stdout (the JSON logs) went elsewhere: the line is on stderr');
});
