import t, { type Test } from 'tap';
import type { Dispatcher } from 'undici';
import {
  UpstreamForbiddenError,
  assertUpstreamAllowed,
  checkAddress,
  createUpstreamDispatcher,
  isUpstreamDispatcher,
  parseAllowList,
  parseUpstreamUrl,
  type Resolve,
} from '../../../daemon/mcp/client/ssrf-guard.js';
import { listen } from '../../helpers/mcp-servers.js';

const NONE = parseAllowList([]);

function dispatcher(t: Test, allow: readonly string[], resolve?: Resolve): Dispatcher {
  const d = createUpstreamDispatcher({ allow, connectTimeoutMs: 5000, ...(resolve ? { resolve } : {}) });
  t.teardown(() => d.close());
  return d;
}

async function get(d: Dispatcher, url: string, reset = false): Promise<Dispatcher.ResponseData> {
  const u = new URL(url);
  return d.request({ origin: u.origin, path: u.pathname, method: 'GET', reset });
}

t.test('every internal range is refused, in its IPv4 and IPv6 forms', async (t) => {
  const forbidden: Array<[string, string]> = [
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'cgnat'],
    ['100.100.100.200', 'cgnat'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['169.254.169.254', 'link-local'],
    ['169.254.0.1', 'link-local'],
    ['192.0.0.192', 'ietf-protocol'],
    ['192.0.2.1', 'documentation'],
    ['198.18.0.1', 'benchmarking'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    ['192.88.99.1', '6to4-relay'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['fe80::1', 'link-local'],
    ['fe80::1%1', 'link-local'],
    ['fc00::1', 'unique-local'],
    ['fd00:ec2::254', 'unique-local'],
    ['ff02::1', 'multicast'],
    ['fec0::1', 'site-local'],
    ['2001:db8::1', 'documentation'],
    ['100::1', 'discard'],
    ['3fff::1', 'documentation'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:0:10.0.0.1', 'ipv4-translated:private'],
    ['::127.0.0.1', 'ipv4-compatible'],
    ['::8.8.8.8', 'ipv4-compatible'],
    ['64:ff9b::127.0.0.1', 'nat64:loopback'],
    ['64:ff9b::a9fe:a9fe', 'nat64:link-local'],
    ['64:ff9b::c0a8:101', 'nat64:private'],
    ['64:ff9b:1::1', 'nat64-local'],
    ['2002:7f00:1::1', '6to4'],
    ['2002:808:808::1', '6to4'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo'],
    ['2001:2::1', 'ietf-protocol'],
    ['4000::1', 'reserved'],
  ];
  for (const [address, range] of forbidden) {
    t.same(checkAddress(address, NONE), { allowed: false, range }, address);
  }
  t.same(checkAddress('localhost', NONE), { allowed: false, range: 'not-an-address' }, 'a name is never judged as an address');
});

t.test('public unicast addresses pass, also when wrapped in mapped or NAT64 form', async (t) => {
  for (const address of [
    '8.8.8.8',
    '1.1.1.1',
    '93.184.215.14',
    '2606:4700:4700::1111',
    '2a00:1450:4001:82a::200e',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
  ]) {
    t.same(checkAddress(address, NONE), { allowed: true }, address);
  }
});

t.test('the allowlist lets exactly its CIDRs through, mapped forms included', async (t) => {
  const allow = parseAllowList(['127.0.0.1/32', '10.0.0.0/8', 'fd00::/8', '::ffff:192.168.1.0/120', '169.254.1.1']);
  t.same(checkAddress('127.0.0.1', allow), { allowed: true });
  t.same(checkAddress('::ffff:127.0.0.1', allow), { allowed: true }, 'the same socket as 127.0.0.1');
  t.same(checkAddress('127.0.0.2', allow), { allowed: false, range: 'loopback' });
  t.same(checkAddress('10.200.1.1', allow), { allowed: true });
  t.same(checkAddress('fd12::1', allow), { allowed: true });
  t.same(checkAddress('fe80::1', allow), { allowed: false, range: 'link-local' });
  t.same(checkAddress('192.168.1.77', allow), { allowed: true }, 'a mapped CIDR allows the IPv4 addresses');
  t.same(checkAddress('169.254.1.1', allow), { allowed: true }, 'a bare address is a single host');
  t.same(checkAddress('169.254.169.254', allow), { allowed: false, range: 'link-local' });
  t.throws(() => parseAllowList(['10.0.0.0/8', 'not-a-cidr']), /not-a-cidr/);
  t.throws(() => parseAllowList(['10.0.0.0/33']));
  t.throws(() => parseAllowList(['10.1/16']), /10\.1\/16/, 'no inet_aton shorthand');
});

t.test('only http and https without credentials', async (t) => {
  for (const [url, reason] of [
    ['ftp://example.com/mcp', 'scheme'],
    ['file:///etc/passwd', 'scheme'],
    ['ws://example.com/mcp', 'scheme'],
    ['gopher://example.com/', 'scheme'],
    ['http://user:pw@example.com/mcp', 'credentials'],
    ['https://token@example.com/', 'credentials'],
    ['not a url', 'invalid_url'],
    ['/relative/mcp', 'invalid_url'],
  ] as const) {
    t.throws(() => parseUpstreamUrl(url), { code: 'upstream_url_forbidden', reason }, url);
  }
  t.equal(parseUpstreamUrl('https://example.com:8443/mcp?x=1#frag').href, 'https://example.com:8443/mcp?x=1', 'the fragment is dropped');
});

t.test('decimal, octal, hex and IPv6 spellings of forbidden addresses are refused before any packet', async (t) => {
  const server = await listen(t, (_req, res) => {
    res.end('reached');
  });
  const d = dispatcher(t, []);
  const port = server.port;
  for (const host of [
    '127.0.0.1',
    '2130706433',
    '0x7f000001',
    '0177.0.0.1',
    '0x7f.1',
    '127.1',
    '017700000001',
    '[::1]',
    '[::ffff:127.0.0.1]',
    '[::ffff:7f00:1]',
    '[0:0:0:0:0:ffff:7f00:1]',
    '[64:ff9b::7f00:1]',
    '[::127.0.0.1]',
    '169.254.169.254',
    '2852039166',
    '[fd00:ec2::254]',
    '0.0.0.0',
    '0',
    '[::]',
    '100.100.100.200',
    '[fe80::1]',
  ]) {
    await t.rejects(get(d, `http://${host}:${port}/mcp`), { code: 'upstream_url_forbidden' }, host);
  }
  t.equal(server.connections(), 0, 'not one connection reached the server');
});

t.test('a host name resolving to loopback is refused (localhost)', async (t) => {
  const server = await listen(t, (_req, res) => {
    res.end('reached');
  });
  await t.rejects(get(dispatcher(t, []), `http://localhost:${server.port}/mcp`), { code: 'upstream_url_forbidden', reason: 'address' });
  await t.rejects(assertUpstreamAllowed(`http://localhost:${server.port}/mcp`, NONE), { code: 'upstream_url_forbidden' });
  t.equal(server.connections(), 0);
});

t.test('https goes through the same guarded resolution', async (t) => {
  await t.rejects(get(dispatcher(t, []), 'https://localhost:1/mcp'), { code: 'upstream_url_forbidden', reason: 'address' });
  await t.rejects(
    get(dispatcher(t, ['127.0.0.0/8', '::1/128']), 'https://localhost:1/mcp'),
    { code: 'ECONNREFUSED' },
    'allowed, so it got as far as connecting',
  );
});

t.test('the allowlist lets a 127.0.0.1 test server through', async (t) => {
  const server = await listen(t, (_req, res) => {
    res.end('reached');
  });
  const res = await get(dispatcher(t, ['127.0.0.1/32']), `http://127.0.0.1:${server.port}/mcp`);
  t.equal(await res.body.text(), 'reached');
  await t.resolves(assertUpstreamAllowed(`http://127.0.0.1:${server.port}/mcp`, parseAllowList(['127.0.0.0/8'])));
});

t.test('ANY forbidden address among those resolved refuses the host', async (t) => {
  const server = await listen(t, (_req, res) => {
    res.end('reached');
  });
  const resolve: Resolve = async () => [
    { address: '127.0.0.1', family: 4 },
    { address: '10.0.0.5', family: 4 },
  ];
  await t.rejects(get(dispatcher(t, ['127.0.0.1/32'], resolve), `http://multi.test:${server.port}/mcp`), {
    code: 'upstream_url_forbidden',
    address: '10.0.0.5',
  });
  t.equal(server.connections(), 0);
});

// DNS rebinding needs a second resolution between the check and the connect. The dispatcher's
// connector resolves exactly once per connection and hands the checked addresses to the socket,
// so the answer that was checked is the answer connected to. Here the "attacker's" resolver
// answers an allowed address first and a forbidden one afterwards.
t.test('DNS rebinding is impossible by construction: the checked resolution is the connected one', async (t) => {
  const server = await listen(t, (_req, res) => {
    res.end('reached');
  });
  const answers: string[] = [];
  const resolve: Resolve = async () => {
    const address = answers.length === 0 ? '127.0.0.1' : '127.0.0.2';
    answers.push(address);
    return [{ address, family: 4 }];
  };
  const d = dispatcher(t, ['127.0.0.1/32'], resolve);
  const first = await get(d, `http://rebind.test:${server.port}/mcp`, true);
  t.equal(await first.body.text(), 'reached');
  t.same(answers, ['127.0.0.1'], 'one resolution for the connection: the one that was checked');
  await t.rejects(get(d, `http://rebind.test:${server.port}/mcp`), { code: 'upstream_url_forbidden', address: '127.0.0.2' });
  t.same(answers, ['127.0.0.1', '127.0.0.2'], 'the new connection resolved again and was refused on that answer');
  t.equal(server.seen.length, 1, 'nothing reached the server after the rebinding');
});

t.test('redirects are not followed', async (t) => {
  const target = await listen(t, (_req, res) => {
    res.end('followed');
  });
  const origin = await listen(t, (_req, res) => {
    res.writeHead(302, { location: target.url });
    res.end();
  });
  const res = await get(dispatcher(t, ['127.0.0.1/32']), origin.url);
  t.equal(res.statusCode, 302, 'the redirect itself is the answer');
  await res.body.dump();
  t.equal(target.connections(), 0, 'the redirect target was never contacted');
});

t.test('only dispatchers made by createUpstreamDispatcher count as guarded', async (t) => {
  const { Agent } = await import('undici');
  const plain = new Agent();
  t.teardown(() => plain.close());
  t.equal(isUpstreamDispatcher(plain), false);
  t.equal(isUpstreamDispatcher(dispatcher(t, [])), true);
  t.ok(new UpstreamForbiddenError('address', 'x') instanceof Error);
});
