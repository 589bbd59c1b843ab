#!/usr/bin/env node
// gatewayctl: the operator CLI of the governance gateway. oclif finds the commands in
// dist/cli/commands through package.json; they always run compiled, never through a TS loader.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { execute, settings, type Interfaces } from '@oclif/core';

// Topic summaries for help; kept beside the commands rather than in the shared package.json.
const TOPICS = {
  agents: { description: 'The agent registry and lifecycle: register, list, get, update, approve ... revoke.' },
  keys: { description: 'Project API keys and user tokens: create, list, revoke.' },
  project: { description: 'Project settings and plan.' },
  stop: { description: 'Emergency stops: the project stop (status, activate, lift) and targeted MCP stops (server, agent).' },
  traces: { description: 'The hash-chained ledger of traces and admin actions.' },
  policies: { description: 'Prompt policies of the verify pipeline.' },
  approvals: { description: 'Held requests waiting for a human decision.' },
  ledger: { description: 'Signed checkpoints of the trace ledger.' },
  anchor: { description: 'Ledger anchoring on an EVM chain (Flare): status, run-now.' },
  extensions: { description: 'Extension keys for the webhook: create, list, revoke.' },
  templates: { description: 'MCP connector templates (all locked for now).' },
  registry: { description: 'The bundled MCP registry catalog: search, sync.' },
  servers: { description: 'MCP servers: register, scan, tools, sign-in, pause, reject, delete.' },
  proxy: { description: 'The MCP proxy: call a tool through it, as an agent would.' },
};

settings.enableAutoTranspile = false;
const root = fileURLToPath(new URL('../../../', import.meta.url));
const pjson = JSON.parse(await readFile(`${root}package.json`, 'utf8')) as Interfaces.PJSON;
pjson.oclif = { ...pjson.oclif, topics: { ...TOPICS, ...pjson.oclif.topics } };
await execute({ loadOptions: { root, pjson } });
