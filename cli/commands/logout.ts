// gatewayctl logout: forgets the saved connection (the file `login` wrote). The token itself stays
// valid on the gateway: revoking it is `keys revoke`, a separate and deliberate act.
import fs from 'node:fs/promises';
import { GatewayCommand } from '../base-command.js';
import { configPath } from '../config.js';

export default class Logout extends GatewayCommand {
  static override summary = 'Forget the saved gateway URL and token; the token stays valid on the gateway.';
  static override examples = ['<%= config.bin %> logout'];

  async run(): Promise<{ config_path: string; removed: boolean }> {
    await this.parse(Logout);
    const file = configPath();
    const removed = await fs.rm(file).then(
      () => true,
      (err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return false;
        throw err;
      },
    );
    this.log(
      removed
        ? `Logged out: removed ${file}. The token is still valid on the gateway; revoke it with gatewayctl keys revoke ID if it should stop working.`
        : `Not logged in: no saved connection in ${file}.`,
    );
    if (process.env.GATEWAY_URL || process.env.GATEWAY_TOKEN)
      this.log('GATEWAY_URL / GATEWAY_TOKEN are set in the environment and still apply.');
    return { config_path: file, removed };
  }
}
