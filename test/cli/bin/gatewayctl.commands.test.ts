// Every gatewayctl command explains itself (issue 20): a summary, at least one example, and --json
// for scripts. The one exception says why.
import { fileURLToPath } from 'node:url';
import { Config } from '@oclif/core';
import t from 'tap';

const root = fileURLToPath(new URL('../../../../', import.meta.url));

/** Commands without --json, and why. */
const NO_JSON: Readonly<Record<string, string>> = {
  bridge: 'a stdio MCP server: its stdout is JSON-RPC for the host, nothing else',
};

t.test('every command has a summary, an example and --json', async (t) => {
  const config = await Config.load(root);
  const ours = config.commands.filter((c) => c.pluginName === config.pjson.name);
  t.ok(ours.length >= 70, `${ours.length} commands found`);
  const lacking = ours.flatMap((c) => [
    ...(c.summary ? [] : [`${c.id}: no summary`]),
    ...((c.examples?.length ?? 0) > 0 ? [] : [`${c.id}: no example`]),
    ...(c.flags?.json !== undefined || c.id in NO_JSON ? [] : [`${c.id}: no --json`]),
  ]);
  t.same(lacking, []);
  for (const id of Object.keys(NO_JSON))
    t.ok(
      ours.some((c) => c.id === id),
      `${id} (excepted) still exists`,
    );
});
