// gatewayctl login: checks a token against the gateway, then saves URL and token (0600).
import { Flags } from '@oclif/core';
import { GatewayCommand } from '../base-command.js';
import { normaliseUrl, saveConnection } from '../config.js';
import { UsageError } from '../errors.js';

interface ProjectSummary {
  id: string;
  name: string;
}

export default class Login extends GatewayCommand {
  static override summary = 'Check a gateway token and save it with the gateway URL for later commands.';
  static override description = `The token is checked with GET /api/v1/project before anything is written. The file is
$GATEWAYCTL_CONFIG, else $XDG_CONFIG_HOME/gatewayctl/config.json or ~/.config/gatewayctl/config.json,
written with mode 0600. Pass --token - to read the token from stdin and keep it out of the shell history.`;

  static override examples = [
    '<%= config.bin %> login --url http://127.0.0.1:8080 --token "$(cat /var/lib/gatewayd/admin.token)"',
    'cat admin.token | <%= config.bin %> login --url https://gateway.example.com --token -',
  ];

  static override flags = {
    url: Flags.string({ summary: 'Base URL of the gateway.', required: true, env: 'GATEWAY_URL' }),
    token: Flags.string({ summary: 'Token to save ("-" reads it from stdin).', required: true, env: 'GATEWAY_TOKEN' }),
  };

  async run(): Promise<{ url: string; config_path: string; project: ProjectSummary }> {
    const { flags } = await this.parse(Login);
    const url = normaliseUrl(flags.url);
    const token = flags.token === '-' ? await readStdin() : flags.token.trim();
    if (!token) throw new UsageError('the token is empty');
    const project = await this.clientFor({ url, token }).request<ProjectSummary>('GET', '/api/v1/project');
    const file = await saveConnection({ url, token });
    this.log(`Logged in to ${url} (project ${project.name}, ${project.id}). Saved to ${file}.`);
    return { url, config_path: file, project: { id: project.id, name: project.name } };
  }
}

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) throw new UsageError('--token - reads the token from stdin, but stdin is a terminal');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').trim();
}
