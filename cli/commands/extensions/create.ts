// gatewayctl extensions create: an extension and its key for POST /api/v1/webhooks/ingest.
import { Flags } from '@oclif/core';
import { createExtensionBody } from '../../../shared/schemas.js';
import { GatewayCommand } from '../../base-command.js';
import { UsageError } from '../../errors.js';

export interface CreatedExtension {
  id: string;
  name: string;
  api_key: string;
}

export default class ExtensionsCreate extends GatewayCommand {
  static override summary = 'Register an extension; its key (shown once) may only post events to /api/v1/webhooks/ingest.';
  static override examples = ['<%= config.bin %> extensions create --name "browser guard"'];

  static override flags = {
    name: Flags.string({ summary: 'Name of the extension.', required: true }),
  };

  async run(): Promise<CreatedExtension> {
    const { flags } = await this.parse(ExtensionsCreate);
    const body = createExtensionBody.safeParse({ name: flags.name });
    if (!body.success) throw new UsageError(body.error.issues.map((i) => `--name: ${i.message}`).join('; '));
    const created = await (await this.api()).request<CreatedExtension>('POST', '/api/v1/extensions', body.data);
    this.notice(`Created extension ${created.id} "${created.name}".`);
    this.notice('This key is shown once and cannot be retrieved again: store it now.');
    this.log(created.api_key);
    return created;
  }
}
