// gatewayctl extensions list: registered extensions, without their keys.
import { GatewayCommand } from '../../base-command.js';
import { table } from '../../format.js';
import { safeText } from '../../trace-output.js';

export interface ExtensionListing {
  id: string;
  name: string;
  prefix: string;
  created_at: string;
  created_by: string | null;
  revoked_at: string | null;
}

export default class ExtensionsList extends GatewayCommand {
  static override summary = 'List extensions (never their keys).';
  static override examples = ['<%= config.bin %> extensions list', '<%= config.bin %> extensions list --json'];

  async run(): Promise<{ extensions: ExtensionListing[] }> {
    await this.parse(ExtensionsList);
    const result = await (await this.api()).request<{ extensions: ExtensionListing[] }>('GET', '/api/v1/extensions');
    if (result.extensions.length === 0) this.log('No extensions.');
    else {
      this.log(
        table(
          ['ID', 'NAME', 'PREFIX', 'CREATED', 'CREATED BY', 'REVOKED'],
          result.extensions.map((e) => [e.id, safeText(e.name, 60), e.prefix, e.created_at, e.created_by, e.revoked_at]),
        ),
      );
    }
    return result;
  }
}
