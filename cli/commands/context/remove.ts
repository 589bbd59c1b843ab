// gatewayctl context remove NAME: forgets one saved gateway (its token stays valid there).
import { Args } from '@oclif/core';
import { GatewayCommand } from '../../base-command.js';
import { configPath, readConfig, writeConfig } from '../../config.js';
import { UsageError } from '../../errors.js';

export default class ContextRemove extends GatewayCommand {
  static override summary = 'Forget a saved context; its token stays valid on its gateway.';
  static override aliases = ['context:delete'];
  static override examples = ['<%= config.bin %> context remove staging'];
  static override args = { name: Args.string({ description: 'Context name.', required: true }) };

  async run(): Promise<{ removed: string; current: string | null }> {
    const { args } = await this.parse(ContextRemove);
    const file = configPath();
    const saved = await readConfig(file);
    if (!saved.contexts[args.name]) throw new UsageError(`no context "${args.name}" in ${file} (gatewayctl context list)`);
    const { [args.name]: _gone, ...contexts } = saved.contexts;
    const current = saved.current === args.name ? null : saved.current;
    await writeConfig(file, { current, contexts });
    this.log(`Removed context ${args.name}.${current === null ? ' No context is current now: gatewayctl context use NAME.' : ''}`);
    return { removed: args.name, current };
  }
}
