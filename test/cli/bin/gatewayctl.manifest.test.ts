// gatewayctl's command manifest (scripts/cli-manifest.mjs, written by `npm run build`): oclif trusts
// it instead of importing every command, so it must name exactly the compiled commands, with the
// flags each command declares. A stale manifest would hide a new command or a new flag's help.
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Plugin } from '@oclif/core';
import t from 'tap';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const commandsDir = path.join(root, 'dist/cli/commands');

interface Manifest {
  version: string;
  commands: Record<string, { flags: Record<string, unknown>; args: Record<string, unknown> }>;
}

/** Command ids from the compiled files: `servers/register.js` is `servers:register`. */
async function compiledIds(): Promise<string[]> {
  const ids: string[] = [];
  for (const entry of await fs.readdir(commandsDir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.js')) continue;
    const rel = path.relative(commandsDir, path.join(entry.parentPath, entry.name));
    ids.push(rel.slice(0, -'.js'.length).split(path.sep).join(':'));
  }
  return ids.sort();
}

t.test('the built manifest names every compiled command and nothing else', async (t) => {
  const manifest = JSON.parse(await fs.readFile(path.join(root, 'oclif.manifest.json'), 'utf8')) as Manifest;
  const pkg = JSON.parse(await fs.readFile(path.join(root, 'package.json'), 'utf8')) as { version: string };
  t.equal(manifest.version, pkg.version, 'the version oclif checks before trusting the file');
  const ids = await compiledIds();
  t.ok(ids.length >= 70, `${ids.length} compiled commands`);
  t.same(Object.keys(manifest.commands).sort(), ids);
});

t.test("each command's flags and arguments in the manifest are the ones its class declares", async (t) => {
  const manifest = JSON.parse(await fs.readFile(path.join(root, 'oclif.manifest.json'), 'utf8')) as Manifest;
  for (const id of await compiledIds()) {
    const file = path.join(commandsDir, ...id.split(':')) + '.js';
    const mod = (await import(pathToFileURL(file).href)) as {
      default: { flags?: object; baseFlags?: object; enableJsonFlag?: boolean; args?: object };
    };
    const { flags, baseFlags, enableJsonFlag } = mod.default;
    const declared = [...new Set([...Object.keys(baseFlags ?? {}), ...Object.keys(flags ?? {}), ...(enableJsonFlag ? ['json'] : [])])];
    t.same(Object.keys(manifest.commands[id]!.flags).sort(), declared.sort(), `${id}: flags`);
    t.same(Object.keys(manifest.commands[id]!.args).sort(), Object.keys(mod.default.args ?? {}).sort(), `${id}: args`);
  }
});

t.test('oclif loads the commands from the manifest, not by importing them', async (t) => {
  const plugin = new Plugin({ root, type: 'core' });
  await plugin.load();
  t.equal(plugin.hasManifest, true);
  t.ok(Object.keys(plugin.manifest.commands).length >= 70);
});
