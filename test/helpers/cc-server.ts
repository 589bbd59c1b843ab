// The command center and webhook routes, reached through a test gateway (routes.ts lists them).
import type { Test } from 'tap';
import { startTestGateway, type GatewayOptions, type TestGateway } from './gateway.js';

export interface CcServer {
  readonly gw: TestGateway;
  readonly url: string;
  readonly call: TestGateway['api'];
}

export async function startCcServer(t: Test, options: GatewayOptions = {}): Promise<CcServer> {
  const gw = await startTestGateway(t, options);
  return { gw, url: gw.url, call: gw.api };
}
