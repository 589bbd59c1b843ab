// docs/cli-reference.md is generated from the commands themselves (oclif's metadata: summary,
// usage, arguments, flags, examples, aliases), so it cannot drift: this test fails when the file is
// stale; UPDATE_DOCS=1 rewrites it (npm run docs:cli).
import fs from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Config, type Command } from '@oclif/core';
import t from 'tap';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const file = fileURLToPath(new URL('../../../../docs/cli-reference.md', import.meta.url));

function flagLine(name: string, f: Command.Flag.Any): string {
  const value = f.type === 'option' ? ` ${f.options ? f.options.join('|') : 'VALUE'}` : '';
  const extra = [
    f.required ? 'required' : null,
    f.type === 'option' && f.multiple ? 'repeatable' : null,
    f.env ? `env ${f.env}` : null,
  ].filter(Boolean);
  const text = (f.summary ?? f.description ?? '').replace(/\s+/g, ' ').trim();
  return `- \`--${name}${value}\`${extra.length > 0 ? ` (${extra.join(', ')})` : ''}: ${text}`;
}

function section(c: Command.Loadable, bin: string): string {
  const words = c.id.replaceAll(':', ' ');
  const args = Object.entries(c.args ?? {}).map(([name, a]) => (a.required ? name.toUpperCase() : `[${name.toUpperCase()}]`));
  const flags = Object.entries(c.flags ?? {}).filter(([name, f]) => !f.hidden && name !== 'json');
  const lines = [
    `## ${bin} ${words}`,
    '',
    (c.summary ?? '').trim(),
    '',
    `Usage: \`${[bin, words, ...args].join(' ')}${flags.length > 0 ? ' [flags]' : ''}${c.flags?.json ? ' [--json]' : ''}\``,
  ];
  if (c.aliases.length > 0) lines.push('', `Also: ${c.aliases.map((a) => `\`${bin} ${a.replaceAll(':', ' ')}\``).join(', ')}`);
  const argDocs = Object.entries(c.args ?? {}).map(([name, a]) => `- \`${name.toUpperCase()}\`: ${(a.description ?? '').trim()}`);
  if (argDocs.length > 0) lines.push('', 'Arguments:', '', ...argDocs);
  if (flags.length > 0) lines.push('', 'Flags:', '', ...flags.map(([name, f]) => flagLine(name, f)));
  const examples = (c.examples ?? []).map((e) => (typeof e === 'string' ? e : e.command).replaceAll('<%= config.bin %>', bin));
  if (examples.length > 0) lines.push('', 'Examples:', '', '```sh', ...examples, '```');
  return lines.join('\n');
}

t.test('docs/cli-reference.md is the commands as they are', async (t) => {
  const config = await Config.load(root);
  // An alias is listed by oclif as a command of its own: it is shown under its command ("Also").
  const ours = config.commands
    .filter((c) => c.pluginName === config.pjson.name && !c.aliases.includes(c.id))
    .sort((a, b) => a.id.localeCompare(b.id));
  const text = `${[
    '# gatewayctl command reference',
    '',
    'Generated from the commands (`npm run docs:cli`); do not edit by hand. The guide is [cli.md](cli.md).',
    ...ours.map((c) => `\n${section(c, config.bin)}`),
  ].join('\n')}\n`;
  if (process.env.UPDATE_DOCS === '1') await fs.writeFile(file, text);
  t.equal(await fs.readFile(file, 'utf8').catch(() => ''), text, 'docs/cli-reference.md is current (npm run docs:cli rewrites it)');
  t.ok(ours.length >= 70, `${ours.length} commands`);
});
