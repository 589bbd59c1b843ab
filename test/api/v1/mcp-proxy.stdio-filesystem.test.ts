// A real file-system server over stdio through the proxy (issue 28): @modelcontextprotocol/
// server-filesystem registered as a stdio server confined to a temporary directory granted
// read-write, called with the official SDK client: list, read and write inside it work; reading
// outside it (the gateway's data directory, /etc/shadow) fails and shows nothing of the file.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { startTestGateway } from '../../helpers/gateway.js';
import { activeStdio, NODE_MODULES, sdkClient, STDIO_ON, textOf } from '../../helpers/stdio-proxy.js';

const FILESYSTEM = path.join(NODE_MODULES, '@modelcontextprotocol/server-filesystem/dist/index.js');

/** The tool's answer as text, an error answer or a JSON-RPC error alike: whether it failed, and what it said. */
async function attempt(call: Promise<unknown>): Promise<{ failed: boolean; text: string }> {
  try {
    const result = (await call) as { isError?: boolean };
    return { failed: result.isError === true, text: textOf(result) };
  } catch (err) {
    return { failed: true, text: String(err) };
  }
}

t.test('server-filesystem confined to a granted directory: list, read and write inside; nothing outside', async (t) => {
  const gw = await startTestGateway(t, { env: STDIO_ON });
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'gw-stdio-fs-'));
  t.teardown(() => fs.rm(root, { recursive: true, force: true }));
  await fs.writeFile(path.join(root, 'notes.txt'), 'written by the host\n');
  const id = await activeStdio(
    t,
    gw,
    {
      transport: 'stdio',
      name: 'files',
      command: 'node',
      args: [FILESYSTEM, root],
      grants: [
        { path: NODE_MODULES, mode: 'ro' },
        { path: root, mode: 'rw' },
      ],
    },
    {},
  );
  const client = await sdkClient(t, gw, id);
  const listed = await attempt(client.callTool({ name: 'list_directory', arguments: { path: root } }));
  t.notOk(listed.failed, listed.text);
  t.match(listed.text, /notes\.txt/, 'the directory is listed');
  const read = await attempt(client.callTool({ name: 'read_text_file', arguments: { path: path.join(root, 'notes.txt') } }));
  t.match(read, { failed: false, text: /written by the host/ }, 'a file inside is read');
  const wrote = await attempt(
    client.callTool({ name: 'write_file', arguments: { path: path.join(root, 'reply.txt'), content: 'written through the gateway' } }),
  );
  t.notOk(wrote.failed, wrote.text);
  t.equal(
    await fs.readFile(path.join(root, 'reply.txt'), 'utf8'),
    'written through the gateway',
    'the write reached the granted directory',
  );

  const token = (await fs.readFile(path.join(gw.dataDir, 'admin.token'), 'utf8')).trim();
  for (const outside of [path.join(gw.dataDir, 'admin.token'), '/etc/shadow', '/etc/passwd']) {
    const tried = await attempt(client.callTool({ name: 'read_text_file', arguments: { path: outside } }));
    t.ok(tried.failed, `${outside} is not read: ${tried.text.slice(0, 160)}`);
    t.notMatch(tried.text, token, 'nothing of the admin token');
    t.notMatch(tried.text, /root:/, 'nothing of the system files');
  }
});

t.test(
  'the same server told it may read all of / still reads nothing of the gateway’s or the system’s secrets: the sandbox holds',
  async (t) => {
    const gw = await startTestGateway(t, { env: STDIO_ON });
    const root = await fs.mkdtemp(path.join(os.tmpdir(), 'gw-stdio-fs-'));
    t.teardown(() => fs.rm(root, { recursive: true, force: true }));
    const id = await activeStdio(
      t,
      gw,
      {
        transport: 'stdio',
        name: 'wide',
        command: 'node',
        args: [FILESYSTEM, '/'],
        grants: [
          { path: NODE_MODULES, mode: 'ro' },
          { path: root, mode: 'rw' },
        ],
      },
      {},
    );
    const client = await sdkClient(t, gw, id);
    const token = (await fs.readFile(path.join(gw.dataDir, 'admin.token'), 'utf8')).trim();
    for (const outside of [path.join(gw.dataDir, 'admin.token'), '/etc/shadow']) {
      const tried = await attempt(client.callTool({ name: 'read_text_file', arguments: { path: outside } }));
      t.ok(tried.failed, `${outside} is not read: ${tried.text.slice(0, 160)}`);
      t.notMatch(tried.text, token, 'nothing of the admin token');
      t.notMatch(tried.text, /root:/, 'nothing of /etc/shadow');
    }
    const written = await attempt(client.callTool({ name: 'write_file', arguments: { path: '/usr/gw-written', content: 'x' } }));
    t.ok(written.failed, `the system is read-only: ${written.text.slice(0, 160)}`);
  },
);
