// The MCP template and registry routes, reached through a test gateway (routes.ts lists them).
import type { Test } from 'tap';
import { startTestGateway, type TestGateway } from './gateway.js';

export interface CatalogServer {
  readonly gw: TestGateway;
  readonly url: string;
  readonly call: TestGateway['api'];
}

export async function startCatalogServer(t: Test): Promise<CatalogServer> {
  const gw = await startTestGateway(t);
  return { gw, url: gw.url, call: gw.api };
}
