// A command gatewayctl does not have: the closest one, suggested wherever the output goes. In a
// terminal @oclif/plugin-not-found asks "Did you mean …?" and runs the answer; anywhere else (a
// pipe, a script, CI) it said nothing useful, so the suggestion is printed on stderr and the exit
// status stays 127, as a shell's for a command not found.
import { toConfiguredId, type Hook } from '@oclif/core';
import askAndRun from '@oclif/plugin-not-found';
import levenshtein from 'fast-levenshtein';

/** The command id (or alias) nearest to `id`, by edit distance. */
export function closestCommand(id: string, ids: readonly string[]): string | null {
  let best: { id: string; distance: number } | null = null;
  for (const candidate of ids) {
    const distance = levenshtein.get(id, candidate);
    if (best === null || distance < best.distance) best = { id: candidate, distance };
  }
  return best?.id ?? null;
}

const hook: Hook<'command_not_found'> = async function (opts) {
  if (process.stdin.isTTY && process.stderr.isTTY) return askAndRun.call(this, opts);
  const visible = opts.config.commands.filter((c) => !c.hidden);
  const ids = [...visible.map((c) => c.id), ...visible.flatMap((c) => c.aliases)];
  const typed = toConfiguredId(opts.id, opts.config);
  const nearest = closestCommand(opts.id, ids);
  const suggestion = nearest === null ? '' : ` Did you mean "${toConfiguredId(nearest, opts.config)}"?`;
  process.stderr.write(`"${typed}" is not a ${opts.config.bin} command.${suggestion} (${opts.config.bin} help lists them)\n`);
  this.exit(127);
};

export default hook;
