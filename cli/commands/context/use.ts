// gatewayctl context use NAME: later commands talk to that saved gateway.
import { Args } from '@oclif/core';
import { GatewayCommand } from '../../base-command.js';
import { configPath, readConfig, writeConfig } from '../../config.js';
import { UsageError } from '../../errors.js';

export default class ContextUse extends GatewayCommand {
  static override summary = 'Make a saved context the one later commands use.';
  static override examples = ['<%= config.bin %> context use staging'];
  static override args = { name: Args.string({ description: 'Context name.', required: true }) };

  async run(): Promise<{ current: string; url: string }> {
    const { args } = await this.parse(ContextUse);
    const file = configPath();
    const saved = await readConfig(file);
    const picked = saved.contexts[args.name];
    if (!picked) throw new UsageError(`no context "${args.name}" in ${file} (gatewayctl context list)`);
    await writeConfig(file, { ...saved, current: args.name });
    this.log(`Now using context ${args.name} (${picked.url}).`);
    return { current: args.name, url: picked.url };
  }
}
