// Every gatewayctl command explains itself (issue 20): a summary, at least one example, and --json
// for scripts (the one exception says why); and one verb per meaning: a command named with another
// word for create, get, update or delete answers to the standard verb too (an alias).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Config } from '@oclif/core';
import t from 'tap';
import { runCli } from '../../helpers/cli.js';

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

/**
 * Words that mean one of the standard verbs; `register` stays (the spec's word) beside its alias.
 * `revoke` is not here: an agent's revoke is a lifecycle step (REVOKED), a key's ends the key
 * (`keys delete` is its alias, checked below).
 */
const STANDARD: Readonly<Record<string, string>> = {
  add: 'create',
  register: 'create',
  remove: 'delete',
  show: 'get',
};

t.test('a command named with another word for create, get or delete also answers to the standard verb', async (t) => {
  const config = await Config.load(root);
  const ours = config.commands.filter((c) => c.pluginName === config.pjson.name);
  const missing = ours.flatMap((c) => {
    const words = c.id.split(':');
    const verb = STANDARD[words.at(-1)!];
    if (verb === undefined) return [];
    const standard = [...words.slice(0, -1), verb].join(':');
    return c.aliases.includes(standard) ? [] : [`${c.id}: no alias ${standard}`];
  });
  t.same(missing, []);
  const set = ours.find((c) => c.id === 'project:set');
  t.ok(set?.aliases.includes('project:update'), 'project set is project update too');
  t.ok(ours.find((c) => c.id === 'keys:revoke')?.aliases.includes('keys:delete'), 'keys revoke is keys delete too');
});

t.test(
  'topic help names what the topic holds: servers names approve, release and verdict; notifications is a topic, not one command',
  async (t) => {
    const home = await fs.mkdtemp(path.join(os.tmpdir(), 'gwctl-topics-'));
    t.teardown(() => fs.rm(home, { recursive: true, force: true }));
    const env = { GATEWAYCTL_CONFIG: path.join(home, 'none.json') };
    const servers = await runCli(['servers', '--help'], home, env);
    for (const verb of ['approve', 'release', 'verdict']) t.match(servers.stdout.split('\n')[0], verb, `servers topic summary: ${verb}`);
    const notifications = await runCli(['notifications', '--help'], home, env);
    t.match(notifications.stdout.split('\n')[0], /^Outbound notification webhooks: their subscriptions .* and the delivery log/);
    t.match(notifications.stdout, /TOPICS\n\s+notifications subscriptions/);
    t.match(notifications.stdout, /COMMANDS\n\s+notifications deliveries/);
    const root = await runCli(['--help'], home, env);
    t.match(root.stdout, /notifications\s+Outbound notification webhooks/);
  },
);
