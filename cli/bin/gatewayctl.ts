#!/usr/bin/env node
// gatewayctl: the operator CLI of the governance gateway. oclif finds the commands in
// dist/cli/commands through package.json; they always run compiled, never through a TS loader.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { execute, settings, type Interfaces } from '@oclif/core';

// Topic summaries for help; kept beside the commands rather than in the shared package.json.
const TOPICS = {
  agents: {
    description:
      'The agent registry and lifecycle: register, list, get, update, approve, reject, pause, resume, suspend, reactivate, revoke.',
  },
  keys: { description: 'Project API keys and user tokens: create, list, revoke.' },
  project: { description: 'Project settings and plan: show, set.' },
  stop: { description: 'Emergency stops: the project stop (status, activate, lift) and targeted MCP stops (server, agent).' },
  traces: { description: 'The hash-chained ledger of traces and admin actions.' },
  policies: { description: 'Policies: prompt policies of verify (prompt), MCP tool rules (mcp), MCP content inspection (content).' },
  'policies:prompt': { description: 'Prompt policies of the verify pipeline: add, list, update, remove.' },
  'policies:mcp': { description: 'MCP rules for a tool, an agent or both: add, list, remove.' },
  'policies:content': { description: 'What each detector does to MCP arguments and results: list, set, unset.' },
  approvals: { description: 'Held requests waiting for a human decision: list, get, status, decide, watch.' },
  ledger: { description: 'Signed checkpoints of the trace ledger: checkpoint, key.' },
  anchor: { description: 'Ledger anchoring on an EVM chain (Flare): status, run-now.' },
  extensions: { description: 'Extension keys for the webhook: create, list, revoke.' },
  templates: { description: 'MCP connector templates (all locked for now).' },
  registry: { description: 'The bundled MCP registry catalog: search, sync.' },
  servers: {
    description:
      'MCP servers: register, list, get, update, scan, tools, approve, release, verdict, pause, resume, reject, delete (a server by its name or id).',
  },
  proxy: { description: 'The MCP proxy: call a tool through it, as an agent would.' },
  notifications: {
    description: 'Outbound notification webhooks: their subscriptions (add, list, remove, test) and the delivery log (deliveries).',
  },
  'notifications:subscriptions': { description: 'Webhook subscriptions: add, list, remove, test (a signed test event).' },
  context: { description: 'Several gateways from one gatewayctl: add, use, list, remove saved contexts.' },
};

settings.enableAutoTranspile = false;
const root = fileURLToPath(new URL('../../../', import.meta.url));
const pjson = JSON.parse(await readFile(`${root}package.json`, 'utf8')) as Interfaces.PJSON;
pjson.oclif = { ...pjson.oclif, topics: { ...TOPICS, ...pjson.oclif.topics } };
await execute({ loadOptions: { root, pjson } });
