// The exchanged-token cache of UpstreamTokens (daemon/identity/token-exchange.ts), against a real
// OpenID provider (oidc-provider on 127.0.0.1 with the test exchange grant) and a clock the test
// moves: an exchanged token is never reused past the subject token it was exchanged for, a token
// issued without expires_in serves one call, and the cache holds at most CACHE_LIMIT tokens, the one
// nearest its expiry leaving first when a new one comes.
import { pino } from 'pino';
import t from 'tap';
import { Agent } from 'undici';
import { CACHE_LIMIT, RENEW_BEFORE_MS, UpstreamTokens } from '../../daemon/identity/token-exchange.js';
import { startOidcProvider } from '../helpers/oidc-provider.js';
import { TOKEN_EXCHANGE_GRANT } from '../helpers/oidc-token-exchange.js';

const SECRET = 'the-gateways-own-secret-at-the-provider-42';
const idp = await startOidcProvider(t, [
  { id: 'alice', secret: 'a-client-secret-of-enough-length-0123456789', claims: { name: 'alice' } },
  { id: 'gateway', secret: SECRET, claims: {}, grants: ['client_credentials', TOKEN_EXCHANGE_GRANT] },
]);
const dispatcher = new Agent();
t.teardown(() => dispatcher.close());
const RESOURCE = 'http://127.0.0.1:9/upstream';
const config = { client_id: 'gateway', client_secret: SECRET, resource: RESOURCE, scope: 'mcp:tools' };

/** UpstreamTokens on the provider with a clock the test sets. */
function tokens(clock: { now: number }): UpstreamTokens {
  return new UpstreamTokens(idp.issuer, { dispatcher, timeoutMs: 10_000 }, pino({ level: 'silent' }), () => clock.now);
}

const exchanges = () => idp.exchange.seen.length;

t.test('an exchanged token is not reused past the subject token it was exchanged for', async (t) => {
  idp.exchange.ttl(3600); // the issued token would live an hour
  t.teardown(() => idp.exchange.ttl(300));
  const subject = await idp.token('alice', 'http://127.0.0.1:9/gateway'); // a JWT that expires in 300 s
  const exp = JSON.parse(Buffer.from(subject.split('.')[1]!, 'base64url').toString('utf8')).exp as number;
  const clock = { now: Date.now() };
  const cache = tokens(clock);
  const before = exchanges();
  const first = await cache.exchange('srv', config, { key: 'alice', token: subject });
  t.equal(await cache.exchange('srv', config, { key: 'alice', token: subject }), first, 'reused while the subject token lives');
  t.equal(exchanges(), before + 1);
  clock.now = exp * 1000 - RENEW_BEFORE_MS + 1_000; // the issued token has most of its hour left; the subject's is nearly over
  await cache.exchange('srv', config, { key: 'alice', token: subject });
  t.equal(exchanges(), before + 2, 'exchanged again within the renewal margin of the subject token');
});

t.test('a token issued for less than the renewal margin serves one call only', async (t) => {
  idp.exchange.ttl(Math.floor(RENEW_BEFORE_MS / 1000) - 5);
  t.teardown(() => idp.exchange.ttl(300));
  const subject = await idp.token('alice', 'http://127.0.0.1:9/gateway');
  const cache = tokens({ now: Date.now() });
  const before = exchanges();
  await cache.exchange('srv', config, { key: 'alice', token: subject });
  await cache.exchange('srv', config, { key: 'alice', token: subject });
  t.equal(exchanges(), before + 2);
});

t.test(`the cache holds at most ${CACHE_LIMIT} tokens; the one nearest its expiry leaves first`, async (t) => {
  const subject = await idp.token('alice', 'http://127.0.0.1:9/gateway');
  const clock = { now: Date.now() };
  const cache = tokens(clock);
  const call = (key: string) => cache.exchange('srv', config, { key, token: subject });
  t.teardown(() => idp.exchange.ttl(300));
  // Neither the first nor the last in: the soonest to expire, not the oldest, is the one to go.
  for (let i = 1; i < CACHE_LIMIT; i += 1) {
    if (i === CACHE_LIMIT / 2) {
      idp.exchange.ttl(120);
      await call('soonest');
    }
    idp.exchange.ttl(280);
    await call(`subject-${i}`);
  } // the cache is full now
  const full = exchanges();
  await call('subject-1');
  await call(`subject-${CACHE_LIMIT - 1}`);
  await call('soonest');
  t.equal(exchanges(), full, 'a full cache still serves every token it holds');
  await call('newcomer'); // one more: one must leave
  t.equal(exchanges(), full + 1);
  await call('newcomer');
  await call('subject-1');
  await call(`subject-${CACHE_LIMIT - 1}`);
  t.equal(exchanges(), full + 1, 'the newcomer and the later ones stay');
  await call('soonest');
  t.equal(exchanges(), full + 2, 'the one nearest its expiry was the one dropped');
});
