// gatewayctl in a real terminal (tmux): shell completion from oclif's autocomplete plugin, and
// "did you mean" from its not-found plugin for a mistyped command; piped, the same suggestion on
// stderr (cli/hooks/command-not-found.ts).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { CLI_BIN, runCli } from '../../helpers/cli.js';
import { eventually } from '../../helpers/eventually.js';

const tmux = (...args: string[]) => execFileSync('tmux', args, { encoding: 'utf8' });

/** A home with `gatewayctl` on PATH (the compiled CLI) and a bash started in tmux. */
async function terminal(t: Test, name: string): Promise<{ home: string; send: (...keys: string[]) => void; screen: () => string }> {
  const home = await fs.mkdtemp(path.join(os.tmpdir(), 'gwctl-term-'));
  const bin = path.join(home, 'bin');
  await fs.mkdir(bin);
  await fs.writeFile(path.join(bin, 'gatewayctl'), `#!/bin/sh\nexec ${process.execPath} ${CLI_BIN} "$@"\n`, { mode: 0o755 });
  // No history file: a shell killed at teardown would write one into the home being removed.
  const env = { HOME: home, PATH: `${bin}:${process.env.PATH}`, GATEWAYCTL_CONFIG: path.join(home, 'none.json'), HISTFILE: '/dev/null' };
  const setup = execFileSync(path.join(bin, 'gatewayctl'), ['autocomplete', 'script', 'bash'], { env, encoding: 'utf8' });
  await fs.writeFile(path.join(home, '.bashrc'), `PS1='$ '\n${setup}\n`);
  execFileSync(path.join(bin, 'gatewayctl'), ['autocomplete', 'bash'], { env }); // builds the completion cache
  const session = `gwctl-${name}-${process.pid}`;
  const exports = Object.entries(env)
    .map(([k, v]) => `${k}='${v}'`)
    .join(' ');
  tmux('new-session', '-d', '-s', session, '-x', '200', '-y', '40', `env ${exports} bash --rcfile ${home}/.bashrc -i`);
  // The shell first, then its home: a shell (or a command it ran) still writing there would make the
  // removal fail with ENOTEMPTY, so it is also retried for a while.
  t.teardown(async () => {
    try {
      tmux('kill-session', '-t', session);
    } catch {
      /* gone */
    }
    await fs.rm(home, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
  });
  return {
    home,
    send: (...keys) => void tmux('send-keys', '-t', session, ...keys),
    screen: () => tmux('capture-pane', '-p', '-J', '-t', session),
  };
}

t.test('Tab completes topics and commands in bash', async (t) => {
  const term = await terminal(t, 'complete');
  t.ok(await eventually(() => term.screen().includes('$ ')), 'the shell is up');
  term.send('gatewayctl appr', 'Tab');
  t.ok(await eventually(() => term.screen().includes('gatewayctl approvals')), `the topic completes:\n${term.screen()}`);
  term.send('dec', 'Tab');
  t.ok(await eventually(() => term.screen().includes('gatewayctl approvals decide')), `the command completes:\n${term.screen()}`);
});

t.test('a mistyped command asks "did you mean" the closest one', async (t) => {
  const term = await terminal(t, 'notfound');
  t.ok(await eventually(() => term.screen().includes('$ ')), 'the shell is up');
  term.send('gatewayctl agent lst', 'Enter');
  t.ok(await eventually(() => /Did you mean agents list\?/.test(term.screen())), `the suggestion:\n${term.screen()}`);
  t.match(term.screen(), /agent lst is not a gatewayctl command/);
  term.send('n', 'Enter');
  t.ok(await eventually(() => /Run gatewayctl help for a list of available commands/.test(term.screen())), 'declined: where to look');
});

t.test('piped (no terminal), a mistyped command still gets the closest one, on stderr, and exit 127', async (t) => {
  const home = await fs.mkdtemp(path.join(os.tmpdir(), 'gwctl-piped-'));
  t.teardown(() => fs.rm(home, { recursive: true, force: true }));
  const run = await runCli(['agent', 'lst'], home, { GATEWAYCTL_CONFIG: path.join(home, 'none.json') });
  t.equal(run.code, 127);
  t.equal(run.stdout, '', 'nothing on stdout');
  t.match(run.stderr, /^"agent lst" is not a gatewayctl command\. Did you mean "agents list"\? \(gatewayctl help lists them\)$/m);
});
