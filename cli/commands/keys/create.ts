// gatewayctl keys create: a project API key, or a user token when --user-id is given.
import { Flags } from '@oclif/core';
import type { CredentialKind, Role } from '../../../shared/credentials.js';
import { createKeyBody } from '../../../shared/schemas.js';
import { GatewayCommand } from '../../base-command.js';
import { UsageError } from '../../errors.js';

export interface CreatedKey {
  id: string;
  name: string;
  role: Role;
  user_id: string | null;
  kind: CredentialKind;
  key: string;
}

export default class KeysCreate extends GatewayCommand {
  static override summary = 'Create a project API key, or a user token with --user-id. The key is shown once.';
  static override examples = [
    '<%= config.bin %> keys create --name ci --role viewer',
    '<%= config.bin %> keys create --name alice --role admin --user-id alice',
  ];

  static override flags = {
    name: Flags.string({ summary: 'Name of the key.', required: true }),
    role: Flags.string({ summary: 'Role of the key: viewer, editor or admin.', required: true }),
    'user-id': Flags.string({ summary: 'User the token acts for; without it the key is a project API key.' }),
  };

  async run(): Promise<CreatedKey> {
    const { flags } = await this.parse(KeysCreate);
    const body = createKeyBody.safeParse({ name: flags.name, role: flags.role, user_id: flags['user-id'] });
    if (!body.success)
      throw new UsageError(body.error.issues.map((i) => `--${String(i.path[0]).replace('_', '-')}: ${i.message}`).join('; '));
    const created = await (await this.api()).request<CreatedKey>('POST', '/api/v1/keys', body.data);
    const owner = created.user_id ? ` for user ${created.user_id}` : '';
    this.notice(`Created ${created.kind} ${created.id} "${created.name}" (role ${created.role}${owner}).`);
    this.notice('This key is shown once and cannot be retrieved again: store it now.');
    this.log(created.key);
    return created;
  }
}
