// gatewayctl logout: forgets the current context's saved token (or the named context's). The token
// itself stays valid on the gateway: revoking it is `keys revoke`, a separate and deliberate act.
import fs from 'node:fs/promises';
import { Flags } from '@oclif/core';
import { GatewayCommand } from '../base-command.js';
import { configPath, readConfig, writeConfig } from '../config.js';

export default class Logout extends GatewayCommand {
  static override summary = 'Forget the saved gateway URL and token of the current context; the token stays valid on the gateway.';
  static override examples = ['<%= config.bin %> logout', '<%= config.bin %> logout --context staging'];
  static override flags = {
    context: Flags.string({ summary: 'Forget this context instead of the current one.' }),
  };

  async run(): Promise<{ config_path: string; context: string | null; removed: boolean }> {
    const { flags } = await this.parse(Logout);
    const file = configPath();
    const saved = await readConfig(file);
    const name = flags.context ?? process.env.GATEWAYCTL_CONTEXT ?? saved.current;
    const removed = name !== null && name !== undefined && name in saved.contexts;
    const signedIn = removed && saved.contexts[name]?.oidc !== undefined;
    if (removed) {
      const { [name]: _gone, ...contexts } = saved.contexts;
      if (Object.keys(contexts).length === 0) await fs.rm(file, { force: true });
      else await writeConfig(file, { current: saved.current === name ? null : saved.current, contexts });
    }
    this.log(
      signedIn
        ? `Logged out of context ${name}: its access and refresh tokens are removed from ${file}. They stay valid at the identity provider until they expire or it revokes them.`
        : removed
          ? `Logged out of context ${name}: its token is removed from ${file}. The token is still valid on the gateway; revoke it with gatewayctl keys revoke ID if it should stop working.`
          : `Not logged in: no saved connection${name ? ` for context ${name}` : ''} in ${file}.`,
    );
    if (process.env.GATEWAY_URL || process.env.GATEWAY_TOKEN)
      this.log('GATEWAY_URL / GATEWAY_TOKEN are set in the environment and still apply.');
    return { config_path: file, context: name ?? null, removed };
  }
}
