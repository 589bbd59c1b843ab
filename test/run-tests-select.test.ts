// CI's second pass (the embedded PostgreSQL) runs only the test files that reach a database
// (run-tests.ts --database-tests): every such file of the suite, none that never opens one.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { databaseTests, testsToRun } from './helpers/run-tests.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

t.test(
  'a file reaching a database or daemon helper (directly or through a test module) is picked; pure, CLI, console and fuzz tests are not',
  async (t) => {
    const base = await fs.mkdtemp(path.join(os.tmpdir(), 'gw-select-'));
    t.teardown(() => fs.rm(base, { recursive: true, force: true }));
    const files: Record<string, string> = {
      'dist/test/helpers/db.js': '',
      'dist/test/helpers/gateway.js': "import { freshDatabase } from './db.js';",
      'dist/test/helpers/spawn-daemon.js': '',
      'dist/test/helpers/mcp-servers.js': "import { freePort } from './ports.js';",
      'dist/test/a/uses-db.test.js': "import { freshDatabase } from '../helpers/db.js';",
      'dist/test/a/uses-gateway.test.js': "import { startGateway } from '../helpers/gateway.js';",
      'dist/test/a/spawns.test.js': "import { spawnDaemon } from '../helpers/spawn-daemon.js';",
      'dist/test/a/through-setup.test.js': "import { seeded } from './setup.js';",
      'dist/test/a/setup.js': "import { startGateway } from '../helpers/gateway.js';",
      'dist/test/a/pure.test.js': "import { scan } from '../../daemon/db/connect.js';",
      'dist/test/a/mcp-only.test.js': "import { startServer } from '../helpers/mcp-servers.js';",
      'dist/test/cli/commands/x.test.js': "import { startGateway } from '../../helpers/gateway.js';",
      'dist/test/console/page.test.js': "import { startGateway } from '../helpers/gateway.js';",
      'dist/test/api/routes.fuzz.test.js': "import { startGateway } from '../helpers/gateway.js';",
    };
    for (const [rel, text] of Object.entries(files)) {
      await fs.mkdir(path.dirname(path.join(base, rel)), { recursive: true });
      await fs.writeFile(path.join(base, rel), text);
    }
    const tests = Object.keys(files).filter((f) => f.endsWith('.test.js'));
    t.same(await databaseTests(base, tests), [
      'dist/test/a/uses-db.test.js',
      'dist/test/a/uses-gateway.test.js',
      'dist/test/a/spawns.test.js',
      'dist/test/a/through-setup.test.js',
    ]);
  },
);

t.test("on this suite: the database's own tests, the API's and the daemon's start are in; detectors are out", async (t) => {
  const { files } = await testsToRun(root, []);
  const picked = new Set(await databaseTests(root, files));
  for (const f of [
    'db/migrate',
    'ledger/trace-writer',
    'api/v1/traces',
    'api/v1/mcp-proxy',
    'main',
    'state-cache/listener',
    'anchor/worker',
  ])
    t.ok(picked.has(`dist/test/${f}.test.js`), `${f} runs in the second pass`);
  for (const f of ['detectors/secrets', 'layers', 'cli/bin/gatewayctl', 'console/approvals', 'api/routes.fuzz'])
    t.notOk(picked.has(`dist/test/${f}.test.js`), `${f} does not`);
  t.ok(picked.size > files.length / 3, `${picked.size} of ${files.length} files`);
});
