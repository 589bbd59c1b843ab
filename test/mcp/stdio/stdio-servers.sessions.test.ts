// The daemon's stdio servers per client session: a 'per-session' process is its session's own, is
// forgotten once it idles out (the session's next use starts another), ends alone with endSession
// and with its server's stop, and a server past its number of per-session processes is refused.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { createLogger } from '../../../daemon/log.js';
import { AllowedCommands } from '../../../daemon/mcp/stdio/allowed-commands.js';
import { checkSandbox } from '../../../daemon/mcp/stdio/sandbox-check.js';
import { StdioRefusal, StdioServers, type StdioDefinition } from '../../../daemon/mcp/stdio/stdio-servers.js';
import { eventually } from '../../helpers/eventually.js';
import { HELPERS } from '../../helpers/stdio-proxy.js';

const def: StdioDefinition = {
  id: 'srv-1',
  projectId: 'p1',
  command: 'node',
  args: [path.join(HELPERS, 'hostile-stdio-server.js')],
  cwd: null,
  env: {},
  secretNames: [],
  grants: [{ path: HELPERS, mode: 'ro' }],
  network: false,
};

async function servers(t: Test, over: { idleMs?: number; maxSessionProcesses?: number } = {}): Promise<StdioServers> {
  const homes = await fs.mkdtemp(path.join(os.tmpdir(), 'gw-stdio-servers-'));
  const stdio = new StdioServers({
    commands: new AllowedCommands(['/usr/bin/node'], process.env.PATH ?? '/usr/bin'),
    sandbox: await checkSandbox(false),
    homesDir: homes,
    hidden: [],
    log: createLogger('silent'),
    ...over,
  });
  t.teardown(async () => {
    await stdio.close();
    await fs.rm(homes, { recursive: true, force: true });
  });
  return stdio;
}

const whoami = async (stdio: StdioServers, session: string | null): Promise<string> => {
  const answer = await (await stdio.upstream(def, session)).request('tools/call', { name: 'whoami', arguments: {} }, 60_000);
  return JSON.stringify(answer);
};

t.test('one process per session, apart from the shared one; endSession ends one; stopServer all', async (t) => {
  const stdio = await servers(t);
  const a = await whoami(stdio, 'a');
  t.equal(await whoami(stdio, 'a'), a, 'a session keeps its process');
  t.not(await whoami(stdio, 'b'), a, 'another session, another process');
  t.not(await whoami(stdio, null), a, 'the shared process is apart');
  t.equal(await stdio.endSession(def.id, 'a'), true);
  t.equal(await stdio.endSession(def.id, 'a'), false, 'ended once');
  t.not(await whoami(stdio, 'a'), a, 'the session’s next use starts a new process');
  t.equal(await stdio.stopServer(def.id), true);
  t.equal(stdio.state(def.id), null, 'nothing of the server is left');
});

t.test('a session’s process that idles out is forgotten', async (t) => {
  const stdio = await servers(t, { idleMs: 200 });
  const first = await whoami(stdio, 'a');
  t.ok(await eventually(async () => stdio.state(def.id) === null), 'gone from the daemon once idle');
  t.not(await whoami(stdio, 'a'), first, 'the next use starts another');
});

t.test('a server past its per-session processes refuses another session', async (t) => {
  const stdio = await servers(t, { maxSessionProcesses: 1 });
  await whoami(stdio, 'a');
  const refused = await stdio.upstream(def, 'b').then(
    () => null,
    (err: unknown) => err,
  );
  t.ok(refused instanceof StdioRefusal, String(refused));
  t.match(String(refused), /already runs 1 per-session processes/);
  await stdio.endSession(def.id, 'a');
  t.ok(await whoami(stdio, 'b'), 'room again once one ended');
});
