// gatewayctl context list: the saved gateways by context name, the current one marked; never tokens.
import { GatewayCommand } from '../../base-command.js';
import { configPath, currentContext, readConfig } from '../../config.js';
import { table } from '../../format.js';

export default class ContextList extends GatewayCommand {
  static override summary = 'List the saved gateways (contexts); * marks the one commands use.';
  static override examples = ['<%= config.bin %> context list', '<%= config.bin %> context list --json'];

  async run(): Promise<{ current: string | null; contexts: { name: string; url: string }[] }> {
    await this.parse(ContextList);
    const saved = await readConfig(configPath());
    const current = await currentContext();
    const contexts = Object.entries(saved.contexts).map(([name, c]) => ({ name, url: c.url }));
    this.log(
      contexts.length === 0
        ? 'No saved contexts: gatewayctl login --url URL --token - [--context NAME]'
        : table(
            ['', 'NAME', 'URL'],
            contexts.map((c) => [c.name === current ? '*' : '', c.name, c.url]),
          ),
    );
    return { current, contexts };
  }
}
