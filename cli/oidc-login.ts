// `gatewayctl login --oidc`: the device grant at the gateway's identity provider (oidc-device.ts),
// the access token checked against the gateway, then saved with its refresh token as a context
// (0600). The person is told where to go and which code to enter, on stderr; tokens are never shown.
import type { GatewayCommand } from './base-command.js';
import { type Connection, currentContext, DEFAULT_CONTEXT, saveConnection } from './config.js';
import { discoverSignIn, pollDeviceGrant, startDeviceGrant } from './oidc-device.js';
import { signInOf } from './oidc-tokens.js';

export interface SignedIn {
  url: string;
  config_path: string;
  context: string;
  project: { id: string; name: string };
  subject: { issuer: string; sub: string; name: string } | null;
  role: string | null;
}

/** Scopes asked for besides the resource's own: a refresh token (offline_access) at OpenID providers. */
const BASE_SCOPES = ['openid', 'offline_access'];

export async function signInWithDevice(
  cmd: GatewayCommand,
  url: string,
  clientId: string,
  scope: string | undefined,
  context: string | undefined,
  tell: (line: string) => void,
): Promise<SignedIn> {
  const target = await discoverSignIn(url);
  const scopes = scope ?? [...new Set([...BASE_SCOPES, ...target.scopes])].join(' ');
  const grant = await startDeviceGrant(target, clientId, scopes);
  tell(`To sign in, open ${grant.verification_uri} and enter the code ${grant.user_code}`);
  if (grant.verification_uri_complete) tell(`(or open ${grant.verification_uri_complete})`);
  tell(`Waiting for the sign-in at ${target.issuer} (the code expires in ${Math.round(grant.expires_in / 60)} min)...`);
  const tokens = await pollDeviceGrant(target, clientId, grant);
  const oidc = signInOf(
    { issuer: target.issuer, client_id: clientId, token_endpoint: target.tokenEndpoint, resource: target.resource },
    tokens,
    null,
  );
  const connection: Connection = { url, token: tokens.access_token, oidc };
  const project = await cmd.checkToken(connection);
  const me = await cmd.whoIs(connection);
  const name = context ?? (await currentContext({ ...process.env, GATEWAY_URL: undefined, GATEWAY_TOKEN: undefined })) ?? DEFAULT_CONTEXT;
  const file = await saveConnection(connection, process.env, name, true);
  return {
    url,
    config_path: file,
    context: name,
    project: { id: project.id, name: project.name },
    subject: me.subject ?? null,
    role: me.role,
  };
}
