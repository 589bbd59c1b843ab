// The operator's allow-list: a command is allowed when it resolves to the path an entry resolves to.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { AllowedCommands, resolveCommand } from '../../../daemon/mcp/stdio/allowed-commands.js';

t.test('names resolve on PATH, absolute paths stand for themselves, relative paths and ".." never resolve', async (t) => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'gw-allow-'));
  t.teardown(() => fs.rm(dir, { recursive: true, force: true }));
  await fs.writeFile(path.join(dir, 'tool'), '#!/bin/sh\n', { mode: 0o755 });
  await fs.writeFile(path.join(dir, 'data'), 'not executable', { mode: 0o644 });
  const PATH = `relative:${dir}:/usr/bin`;
  t.equal(resolveCommand('tool', PATH), path.join(dir, 'tool'));
  t.equal(resolveCommand('data', PATH), null, 'not executable: not found');
  t.equal(resolveCommand('/opt/x/server', PATH), '/opt/x/server');
  t.equal(resolveCommand('bin/tool', PATH), null);
  t.equal(resolveCommand('/opt/../usr/bin/node', PATH), null);

  const allow = new AllowedCommands(['tool', '/usr/bin/node'], PATH);
  t.equal(allow.resolve('tool'), path.join(dir, 'tool'));
  t.equal(allow.resolve(path.join(dir, 'tool')), path.join(dir, 'tool'), 'the same program by its path');
  t.equal(allow.resolve('node'), '/usr/bin/node', 'found on PATH at the allowed path');
  t.equal(allow.resolve('sh'), null);
  t.equal(allow.resolve('/usr/bin/env'), null);
  t.ok(new AllowedCommands([], PATH).empty);
});
