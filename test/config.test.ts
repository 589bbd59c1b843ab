import t from 'tap';
import { ConfigError, loadConfig } from '../daemon/config.js';

t.test('defaults follow the contract', async (t) => {
  const c = loadConfig({});
  t.equal(c.databaseUrl, undefined);
  t.match(c.dataDir, /\.gateway$/);
  t.same(c.listen, { host: '127.0.0.1', port: 8080 });
  t.equal(c.approvalTtlSeconds, 3600);
  t.equal(c.maxPendingApprovalsPerAgent, 20);
  t.equal(c.exportRowCap, 1_000_000);
  t.equal(c.bodyLimitBytes, 10 * 1024 * 1024);
  t.equal(c.upstreamResponseLimitBytes, 64 * 1024 * 1024);
  t.equal(c.upstreamTimeoutMs, 30_000);
  t.same(c.upstreamAllow, []);
  t.ok(Object.isFrozen(c));
});

t.test('values are parsed', async (t) => {
  const c = loadConfig({ GATEWAY_LISTEN: '[::1]:9000', GATEWAY_UPSTREAM_ALLOW: '10.0.0.0/8, 127.0.0.1/32', GATEWAY_EXPORT_ROW_CAP: '10' });
  t.same(c.listen, { host: '::1', port: 9000 });
  t.same(c.upstreamAllow, ['10.0.0.0/8', '127.0.0.1/32']);
  t.equal(c.exportRowCap, 10);
});

t.test('a wrong value is one line naming the variable', async (t) => {
  const cases: Record<string, string> = {
    GATEWAY_LISTEN: 'nope',
    DATABASE_URL: 'not a url',
    GATEWAY_BODY_LIMIT_BYTES: '-5',
    GATEWAY_LOG_LEVEL: 'loud',
    GATEWAY_ENCRYPTION_KEY: 'short',
    GATEWAY_APPROVAL_TTL_SECONDS: 'abc',
  };
  for (const [name, value] of Object.entries(cases)) {
    const err = (() => { try { loadConfig({ [name]: value }); return null; } catch (e) { return e; } })();
    t.type(err, ConfigError, name);
    t.match((err as Error).message, new RegExp(`^invalid configuration: ${name}: `), name);
    t.notMatch((err as Error).message, /\n/, `${name}: one line`);
  }
});
