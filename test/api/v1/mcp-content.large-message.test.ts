// One caller's large message no longer stalls everyone. A tools/call whose
// arguments are many short strings is inspected in turns (inspect.ts inspectInTurns): /healthz is
// answered while it is inspected. Timings are ratios measured in the same run: the slowest /healthz
// answer during the call against the call's own duration.
import t from 'tap';
import { activeServer, startCountingServer, startProxyGateway } from '../../helpers/mcp-proxy.js';

t.test('/healthz is answered while a large tools/call is inspected', async (t) => {
  // A budget the message stays within: it is inspected whole, then forwarded.
  const px = await startProxyGateway(t, { GATEWAY_INSPECTION_BUDGET_MS: '600000' });
  const up = await startCountingServer(t, { response: 'json', stateless: true });
  const server = await activeServer(px, up.url, { get_weather: 'ALLOW' });
  const items = Array.from({ length: 12_000 }, (_, i) => `item ${i} of the list, nothing secret`);
  const viewer = await px.gw.key('viewer');

  const idle: number[] = [];
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    t.equal((await px.gw.api('GET', '/healthz', { token: null })).status, 200);
    idle.push(performance.now() - started);
  }

  const started = performance.now();
  let done = false;
  const big = px.callTool(server.id, 'get_weather', { city: 'Paris', items }, { token: viewer }).finally(() => {
    done = true;
  });
  const during: number[] = [];
  const statuses = new Set<number>();
  while (!done) {
    const asked = performance.now();
    statuses.add((await px.gw.api('GET', '/healthz', { token: null })).status);
    if (!done) during.push(performance.now() - asked);
  }
  t.same([...statuses], [200], '/healthz answered ok throughout');
  const answer = await big;
  const took = performance.now() - started;
  t.equal(answer.status, 200, answer.text.slice(0, 200));
  t.notOk(answer.body.error, 'inspected within its budget and forwarded');
  t.equal(up.calls(), 1);

  const slowest = Math.max(...during);
  const median = [...idle].sort((a, b) => a - b)[2]!;
  t.ok(took / median >= 20, `the call took long enough to measure (${(took / median).toFixed(0)} idle /healthz answers long)`);
  t.ok(during.length >= 3, `/healthz answered ${during.length} times during the call`);
  t.ok(slowest / took < 0.25, `the slowest /healthz answer took ${((100 * slowest) / took).toFixed(1)}% of the call's time`);
});
