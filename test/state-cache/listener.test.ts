// The state cache's listener when its connection dies silently: no close, no notification. The
// heartbeat (a marker NOTIFY sent on the listening connection itself) must notice, bypass the
// cache, and listen again on a new connection.
import { Writable } from 'node:stream';
import postgres from 'postgres';
import t from 'tap';
import type { Sql } from '../../daemon/db/connect.js';
import { migrate } from '../../daemon/db/migrate.js';
import { createLogger } from '../../daemon/log.js';
import { StateCache } from '../../daemon/state-cache/cache.js';
import { listenForState } from '../../daemon/state-cache/listener.js';
import { freshDatabase } from '../helpers/db.js';
import { startTcpRelay } from '../helpers/tcp-relay.js';
import { eventually } from '../helpers/eventually.js';

const lines: string[] = [];
const log = createLogger(
  'warn',
  new Writable({
    write(c, _e, done) {
      lines.push(String(c));
      done();
    },
  }),
);

t.test(
  'a listening connection that goes silent without closing is noticed by the heartbeat; the cache is bypassed until a new one listens',
  async (t) => {
    const url = await freshDatabase(t);
    const sql = postgres(url, { max: 1, onnotice: () => {} }) as unknown as Sql;
    t.teardown(() => sql.end({ timeout: 1 }));
    await migrate(sql);
    await sql`insert into projects (id, name) values ('p1', 'one')`;
    await sql`insert into mcp_servers (id, project_id, name, name_key, server_url, status) values ('s1', 'p1', 'a', 'a', 'http://127.0.0.1:1', 'ACTIVE')`;
    const target = new URL(url);
    const relay = await startTcpRelay(target.hostname, Number(target.port || 5432));
    t.teardown(() => relay.close());
    const viaRelay = new URL(url);
    viaRelay.port = String(relay.port);

    const cache = new StateCache();
    const listener = listenForState(viaRelay.toString(), cache, log, { instanceId: 'state-silent', heartbeatMs: 300, retryMs: 50 });
    t.teardown(() => listener.close());
    await listener.started;
    t.ok(cache.connected, 'listening');
    const status = async () => (await sql<{ status: string }[]>`select status from mcp_servers where id = 's1'`)[0]!.status;
    t.equal(await cache.read('p1', 'server', 's1', status), 'ACTIVE');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    t.ok(cache.connected, 'heartbeats that come back keep it listening');
    t.equal(relay.opened, 1, 'on one connection');

    relay.freeze(); // the listening connection now delivers nothing, and nobody sees it close
    await sql`update mcp_servers set status = 'BLOCKED' where id = 's1'`; // a change whose notification is lost
    t.ok(await eventually(() => !cache.connected, 15_000), 'the silent connection is noticed');
    t.equal(await cache.read('p1', 'server', 's1', status), 'BLOCKED', 'reads go to the database');
    t.ok(
      lines.some((l) => /sent no notification/.test(l)),
      'and say why in the log',
    );

    t.ok(await eventually(() => cache.connected, 15_000), 'it listens again on a new connection');
    t.ok(relay.opened >= 2);
    t.equal(await cache.read('p1', 'server', 's1', status), 'BLOCKED');
    t.equal(await cache.read('p1', 'server', 's1', async () => 'not read'), 'BLOCKED', 'caching again');
    await sql`update mcp_servers set status = 'ACTIVE' where id = 's1'`;
    t.ok(
      await eventually(async () => (await cache.read('p1', 'server', 's1', async () => 'loaded again')) === 'loaded again', 15_000),
      'and drops entries on notifications again',
    );
  },
);
