// gatewayctl context add NAME: saves another gateway (its token checked first) without switching
// to it, unless no context is current yet.
import { Args, Flags } from '@oclif/core';
import { GatewayCommand } from '../../base-command.js';
import { checkAndSave } from '../login.js';

export default class ContextAdd extends GatewayCommand {
  static override summary = 'Save another gateway as a named context (the token is checked first); context use switches to it.';
  static override aliases = ['context:create'];
  static override examples = [
    '<%= config.bin %> context add staging --url https://gw.staging.example.com --token - < staging.token',
    '<%= config.bin %> context use staging',
  ];
  static override args = { name: Args.string({ description: 'Context name.', required: true }) };
  static override flags = {
    url: Flags.string({ summary: 'Base URL of the gateway.', required: true }),
    token: Flags.string({ summary: 'Its token ("-" reads it from stdin).', required: true }),
  };

  async run(): Promise<{ url: string; config_path: string; context: string; project: { id: string; name: string } }> {
    const { args, flags } = await this.parse(ContextAdd);
    const saved = await checkAndSave(this, flags.url, flags.token, args.name, false);
    this.log(`Saved context ${saved.context}: ${saved.url} (project ${saved.project.name}).`);
    return saved;
  }
}
