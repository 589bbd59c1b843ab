import path from 'node:path';
import t from 'tap';
import { ConfigError, defaultPublicUrl, loadConfig } from '../daemon/config.js';

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

t.test('GATEWAY_INJECTION_MODEL_DIR: unset is no ONNX model, set is an absolute directory', async (t) => {
  t.equal(loadConfig({}).injectionModelDir, null);
  t.equal(loadConfig({ GATEWAY_INJECTION_MODEL_DIR: 'models/guard' }).injectionModelDir, path.resolve('models/guard'));
});

t.test('GATEWAY_PUBLIC_URL: an http(s) base URL, trailing slash dropped; unset is where the daemon listens', async (t) => {
  t.equal(loadConfig({}).publicUrl, null, 'unset: derived from the listening address (app.ts)');
  t.equal(loadConfig({ GATEWAY_PUBLIC_URL: 'https://gw.example.com/' }).publicUrl, 'https://gw.example.com');
  t.equal(loadConfig({ GATEWAY_PUBLIC_URL: 'http://10.0.0.5:8443' }).publicUrl, 'http://10.0.0.5:8443');
  for (const bad of [
    'ftp://gw.example.com',
    'https://gw.example.com/gateway',
    'https://gw.example.com/?a=1',
    'https://gw.example.com/?',
    'https://gw.example.com/#x',
    'https://user:pw@gw.example.com',
    'gw.example.com',
  ]) {
    t.throws(() => loadConfig({ GATEWAY_PUBLIC_URL: bad }), /^invalid configuration: GATEWAY_PUBLIC_URL: /, bad);
  }
  t.equal(defaultPublicUrl('127.0.0.1', 8080), 'http://127.0.0.1:8080');
  t.equal(defaultPublicUrl('0.0.0.0', 8080), 'http://127.0.0.1:8080', 'a wildcard address is shown as 127.0.0.1');
  t.equal(defaultPublicUrl('::', 9000), 'http://127.0.0.1:9000');
  t.equal(defaultPublicUrl('::1', 9000), 'http://[::1]:9000');
  t.equal(defaultPublicUrl('gw.internal', 80), 'http://gw.internal:80');
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
    const err = (() => {
      try {
        loadConfig({ [name]: value });
        return null;
      } catch (e) {
        return e;
      }
    })();
    t.type(err, ConfigError, name);
    t.match((err as Error).message, new RegExp(`^invalid configuration: ${name}: `), name);
    t.notMatch((err as Error).message, /\n/, `${name}: one line`);
  }
});

t.test('anchoring: off without GATEWAY_ANCHOR_RPC_URL, defaults with it, chain id and key file required', async (t) => {
  t.equal(loadConfig({}).anchor, null, 'off by default');
  const c = loadConfig({
    GATEWAY_ANCHOR_RPC_URL: 'https://coston2-api.flare.network/ext/C/rpc',
    GATEWAY_ANCHOR_CHAIN_ID: '114',
    GATEWAY_ANCHOR_KEY_FILE: 'anchor.key',
  });
  t.same(c.anchor, {
    rpcUrl: 'https://coston2-api.flare.network/ext/C/rpc',
    chainId: 114,
    keyFile: path.resolve('anchor.key'),
    epochMs: 600_000,
    maxAttempts: 5,
    receiptTimeoutMs: 60_000,
  });
  t.ok(Object.isFrozen(c.anchor));
  const tuned = loadConfig({
    GATEWAY_ANCHOR_RPC_URL: 'http://127.0.0.1:8545',
    GATEWAY_ANCHOR_CHAIN_ID: '14',
    GATEWAY_ANCHOR_KEY_FILE: '/etc/gw/anchor.key',
    GATEWAY_ANCHOR_EPOCH_SECONDS: '60',
    GATEWAY_ANCHOR_MAX_ATTEMPTS: '2',
    GATEWAY_ANCHOR_RECEIPT_TIMEOUT_SECONDS: '5',
  }).anchor!;
  t.same(
    [tuned.chainId, tuned.keyFile, tuned.epochMs, tuned.maxAttempts, tuned.receiptTimeoutMs],
    [14, '/etc/gw/anchor.key', 60_000, 2, 5_000],
  );
  t.equal(
    loadConfig({ GATEWAY_ANCHOR_CHAIN_ID: '14', GATEWAY_ANCHOR_EPOCH_SECONDS: '60' }).anchor,
    null,
    'the URL switches it on, nothing else',
  );

  const refused: [Record<string, string>, RegExp][] = [
    [
      { GATEWAY_ANCHOR_RPC_URL: 'http://127.0.0.1:8545', GATEWAY_ANCHOR_KEY_FILE: 'k' },
      /^invalid configuration: GATEWAY_ANCHOR_CHAIN_ID: required when GATEWAY_ANCHOR_RPC_URL is set$/,
    ],
    [
      { GATEWAY_ANCHOR_RPC_URL: 'http://127.0.0.1:8545', GATEWAY_ANCHOR_CHAIN_ID: '114' },
      /^invalid configuration: GATEWAY_ANCHOR_KEY_FILE: required when GATEWAY_ANCHOR_RPC_URL is set$/,
    ],
    [
      { GATEWAY_ANCHOR_RPC_URL: 'ws://127.0.0.1:8545', GATEWAY_ANCHOR_CHAIN_ID: '114', GATEWAY_ANCHOR_KEY_FILE: 'k' },
      /^invalid configuration: GATEWAY_ANCHOR_RPC_URL: /,
    ],
    [{ GATEWAY_ANCHOR_RPC_URL: 'not a url' }, /^invalid configuration: GATEWAY_ANCHOR_RPC_URL: /],
    [{ GATEWAY_ANCHOR_CHAIN_ID: '-1' }, /^invalid configuration: GATEWAY_ANCHOR_CHAIN_ID: /],
    [{ GATEWAY_ANCHOR_EPOCH_SECONDS: '0' }, /^invalid configuration: GATEWAY_ANCHOR_EPOCH_SECONDS: /],
    [{ GATEWAY_ANCHOR_MAX_ATTEMPTS: 'many' }, /^invalid configuration: GATEWAY_ANCHOR_MAX_ATTEMPTS: /],
    [{ GATEWAY_ANCHOR_RECEIPT_TIMEOUT_SECONDS: '1.5' }, /^invalid configuration: GATEWAY_ANCHOR_RECEIPT_TIMEOUT_SECONDS: /],
  ];
  for (const [env, message] of refused) {
    const err = (() => {
      try {
        loadConfig(env);
        return null;
      } catch (e) {
        return e;
      }
    })();
    t.type(err, ConfigError, Object.keys(env).join(', '));
    t.match((err as Error).message, message, Object.keys(env).join(', '));
  }
});

t.test('GATEWAY_STDIO_COMMANDS: empty by default (stdio servers off); absolute paths or bare names, nothing else', async (t) => {
  t.same(loadConfig({}).stdioCommands, []);
  t.equal(loadConfig({}).stdioUnsafeNoSandbox, false);
  t.same(loadConfig({ GATEWAY_STDIO_COMMANDS: 'npx, /usr/bin/node,uvx' }).stdioCommands, ['npx', '/usr/bin/node', 'uvx']);
  t.equal(loadConfig({ GATEWAY_STDIO_UNSAFE_NO_SANDBOX: '1' }).stdioUnsafeNoSandbox, true);
  for (const bad of ['bin/node', '/usr/../bin/node', 'n px']) {
    t.throws(() => loadConfig({ GATEWAY_STDIO_COMMANDS: bad }), { message: /GATEWAY_STDIO_COMMANDS/ }, bad);
  }
  t.throws(() => loadConfig({ GATEWAY_STDIO_UNSAFE_NO_SANDBOX: 'yes' }), { message: /GATEWAY_STDIO_UNSAFE_NO_SANDBOX/ });
});
