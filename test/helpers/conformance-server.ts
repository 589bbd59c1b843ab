// A reference MCP server for the official conformance suite's server scenarios
// (@modelcontextprotocol/conformance, `conformance list --server`), written here from the
// scenarios' published requirements with the 2025-era SDK (low-level Server, stateful streamable
// HTTP, SSE answers): the test_* tools, resources, templates and prompts they name, completion,
// logging, and DNS rebinding protection (a non-localhost Host or Origin is refused 403).
// Not implemented: test_reconnection (server-sse-polling), which needs an event store.
import type http from 'node:http';
import type { Test } from 'tap';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  CreateMessageResultSchema,
  ElicitResultSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { listen, sessionRouter, type RunningServer } from './mcp-servers.js';

// A 1x1 PNG and a 1-sample WAV, made here.
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const WAV = Buffer.concat([
  Buffer.from('RIFF'),
  Buffer.from([38, 0, 0, 0]),
  Buffer.from('WAVEfmt '),
  Buffer.from([16, 0, 0, 0, 1, 0, 1, 0, 0x40, 0x1f, 0, 0, 0x80, 0x3e, 0, 0, 2, 0, 16, 0]),
  Buffer.from('data'),
  Buffer.from([2, 0, 0, 0, 0, 0]),
]).toString('base64');

const noArgs = { type: 'object', properties: {} };
const str = (description: string) => ({ type: 'string', description });

export const CONFORMANCE_TOOLS = [
  { name: 'test_simple_text', description: 'Returns simple text.', inputSchema: noArgs },
  { name: 'test_image_content', description: 'Returns an image.', inputSchema: noArgs },
  { name: 'test_audio_content', description: 'Returns audio.', inputSchema: noArgs },
  { name: 'test_embedded_resource', description: 'Returns an embedded resource.', inputSchema: noArgs },
  { name: 'test_multiple_content_types', description: 'Returns text, an image and a resource.', inputSchema: noArgs },
  { name: 'test_tool_with_logging', description: 'Logs three messages while it runs.', inputSchema: noArgs },
  { name: 'test_error_handling', description: 'Always fails.', inputSchema: noArgs },
  { name: 'test_tool_with_progress', description: 'Reports progress.', inputSchema: noArgs },
  {
    name: 'test_sampling',
    description: 'Asks the client for a completion.',
    inputSchema: { type: 'object', properties: { prompt: str('The prompt') }, required: ['prompt'] },
  },
  {
    name: 'test_elicitation',
    description: 'Asks the user.',
    inputSchema: { type: 'object', properties: { message: str('The message') }, required: ['message'] },
  },
  { name: 'test_elicitation_sep1034_defaults', description: 'Asks the user, with defaults.', inputSchema: noArgs },
  { name: 'test_elicitation_sep1330_enums', description: 'Asks the user, with every enum form.', inputSchema: noArgs },
  {
    name: 'json_schema_2020_12_tool',
    description: 'Tool with JSON Schema 2020-12 features',
    inputSchema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: { address: { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
      properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
      additionalProperties: false,
    },
  },
];

const text = (t: string) => ({ type: 'text', text: t });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function build(): Server {
  const server = new Server(
    { name: 'conformance-reference', version: '1.0.0' },
    {
      capabilities: { tools: {}, resources: { subscribe: true }, prompts: {}, logging: {}, completions: {} },
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: CONFORMANCE_TOOLS as never }));
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const args = (req.params.arguments ?? {}) as Record<string, string>;
    switch (req.params.name) {
      case 'test_simple_text':
        return { content: [text('This is a simple text response for testing.')] };
      case 'test_image_content':
        return { content: [{ type: 'image', data: PNG, mimeType: 'image/png' }] };
      case 'test_audio_content':
        return { content: [{ type: 'audio', data: WAV, mimeType: 'audio/wav' }] };
      case 'test_embedded_resource':
        return {
          content: [
            {
              type: 'resource',
              resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' },
            },
          ],
        };
      case 'test_multiple_content_types':
        return {
          content: [
            text('Multiple content types test:'),
            { type: 'image', data: PNG, mimeType: 'image/png' },
            {
              type: 'resource',
              resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: '{"test":"data","value":123}' },
            },
          ],
        };
      case 'test_tool_with_logging':
        for (const [i, data] of ['Tool execution started', 'Tool processing data', 'Tool execution completed'].entries()) {
          if (i > 0) await sleep(50);
          await extra.sendNotification({ method: 'notifications/message', params: { level: 'info', data } });
        }
        return { content: [text('Tool with logging executed.')] };
      case 'test_error_handling':
        return { isError: true, content: [text('This tool intentionally returns an error for testing')] };
      case 'test_tool_with_progress': {
        const token = req.params._meta?.progressToken;
        for (const progress of [0, 50, 100]) {
          if (progress > 0) await sleep(50);
          if (token !== undefined)
            await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress, total: 100 } });
        }
        return { content: [text('Tool with progress executed.')] };
      }
      case 'test_sampling': {
        const answer = await extra.sendRequest(
          { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: text(args.prompt ?? '') }], maxTokens: 100 } },
          CreateMessageResultSchema,
        );
        const content = answer.content as { type: string; text?: string };
        return { content: [text(`LLM response: ${content.type === 'text' ? content.text : JSON.stringify(content)}`)] };
      }
      case 'test_elicitation': {
        const answer = await extra.sendRequest(
          {
            method: 'elicitation/create',
            params: {
              message: args.message ?? '',
              requestedSchema: {
                type: 'object',
                properties: { username: str("User's response"), email: str("User's email address") },
                required: ['username', 'email'],
              },
            },
          },
          ElicitResultSchema,
        );
        return { content: [text(`User response: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`)] };
      }
      case 'test_elicitation_sep1034_defaults': {
        const answer = await extra.sendRequest(
          {
            method: 'elicitation/create',
            params: {
              message: 'Defaults for every primitive type',
              requestedSchema: {
                type: 'object',
                properties: {
                  name: { type: 'string', default: 'John Doe' },
                  age: { type: 'integer', default: 30 },
                  score: { type: 'number', default: 95.5 },
                  status: { type: 'string', enum: ['active', 'inactive', 'pending'], default: 'active' },
                  verified: { type: 'boolean', default: true },
                },
              },
            },
          } as never,
          ElicitResultSchema,
        );
        return { content: [text(`Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`)] };
      }
      case 'test_elicitation_sep1330_enums': {
        const answer = await extra.sendRequest(
          {
            method: 'elicitation/create',
            params: {
              message: 'Every enum form',
              requestedSchema: {
                type: 'object',
                properties: {
                  untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
                  titledSingle: {
                    type: 'string',
                    oneOf: [
                      { const: 'value1', title: 'First Option' },
                      { const: 'value2', title: 'Second Option' },
                      { const: 'value3', title: 'Third Option' },
                    ],
                  },
                  legacyEnum: { type: 'string', enum: ['opt1', 'opt2', 'opt3'], enumNames: ['Option One', 'Option Two', 'Option Three'] },
                  untitledMulti: { type: 'array', items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
                  titledMulti: {
                    type: 'array',
                    items: {
                      anyOf: [
                        { const: 'value1', title: 'First Choice' },
                        { const: 'value2', title: 'Second Choice' },
                        { const: 'value3', title: 'Third Choice' },
                      ],
                    },
                  },
                },
              },
            },
          } as never,
          ElicitResultSchema,
        );
        return { content: [text(`Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`)] };
      }
      case 'json_schema_2020_12_tool':
        return { content: [text(JSON.stringify(args))] };
      default:
        return { isError: true, content: [text(`Unknown tool ${req.params.name}`)] };
    }
  });
  server.setRequestHandler(ListResourcesRequestSchema, () => ({
    resources: [
      { uri: 'test://static-text', name: 'static-text', description: 'A static text resource.', mimeType: 'text/plain' },
      { uri: 'test://static-binary', name: 'static-binary', description: 'A static binary resource.', mimeType: 'image/png' },
      { uri: 'test://watched-resource', name: 'watched-resource', description: 'A resource to subscribe to.', mimeType: 'text/plain' },
    ],
  }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [
      { uriTemplate: 'test://template/{id}/data', name: 'template', description: 'Data by id.', mimeType: 'application/json' },
    ],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, (req) => {
    const uri = req.params.uri;
    if (uri === 'test://static-text')
      return { contents: [{ uri, mimeType: 'text/plain', text: 'This is the content of the static text resource.' }] };
    if (uri === 'test://static-binary') return { contents: [{ uri, mimeType: 'image/png', blob: PNG }] };
    if (uri === 'test://watched-resource') return { contents: [{ uri, mimeType: 'text/plain', text: 'Watched.' }] };
    const id = /^test:\/\/template\/([^/]+)\/data$/.exec(uri)?.[1];
    if (id !== undefined)
      return {
        contents: [{ uri, mimeType: 'application/json', text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }) }],
      };
    throw new Error(`no resource ${uri}`);
  });
  server.setRequestHandler(SubscribeRequestSchema, () => ({}));
  server.setRequestHandler(UnsubscribeRequestSchema, () => ({}));
  server.setRequestHandler(ListPromptsRequestSchema, () => ({
    prompts: [
      { name: 'test_simple_prompt', description: 'A simple prompt.' },
      {
        name: 'test_prompt_with_arguments',
        description: 'A prompt with arguments.',
        arguments: [
          { name: 'arg1', description: 'First test argument', required: true },
          { name: 'arg2', description: 'Second test argument', required: true },
        ],
      },
      {
        name: 'test_prompt_with_embedded_resource',
        description: 'A prompt with a resource.',
        arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
      },
      { name: 'test_prompt_with_image', description: 'A prompt with an image.' },
    ],
  }));
  server.setRequestHandler(GetPromptRequestSchema, (req) => {
    const args = req.params.arguments ?? {};
    const user = (content: unknown) => ({ role: 'user' as const, content: content as never });
    switch (req.params.name) {
      case 'test_simple_prompt':
        return { messages: [user(text('This is a simple prompt for testing.'))] };
      case 'test_prompt_with_arguments':
        return { messages: [user(text(`Prompt with arguments: arg1='${args.arg1}', arg2='${args.arg2}'`))] };
      case 'test_prompt_with_embedded_resource':
        return {
          messages: [
            user({
              type: 'resource',
              resource: { uri: args.resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' },
            }),
            user(text('Please process the embedded resource above.')),
          ],
        };
      case 'test_prompt_with_image':
        return { messages: [user({ type: 'image', data: PNG, mimeType: 'image/png' }), user(text('Please analyze the image above.'))] };
      default:
        throw new Error(`no prompt ${req.params.name}`);
    }
  });
  server.setRequestHandler(CompleteRequestSchema, () => ({ completion: { values: [], total: 0, hasMore: false } }));
  server.setRequestHandler(SetLevelRequestSchema, () => ({}));
  return server;
}

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
const isLocal = (hostPort: string | undefined) => hostPort !== undefined && LOCAL_HOSTS.has(hostPort.replace(/:\d+$/, '').toLowerCase());

export async function startConformanceServer(t: Test): Promise<RunningServer> {
  const route = sessionRouter(t, build);
  return listen(t, async (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer) => {
    const origin = req.headers.origin;
    if (!isLocal(req.headers.host) || (origin !== undefined && !isLocal(origin.replace(/^https?:\/\//, '')))) {
      res.writeHead(403, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Host or Origin not allowed' }, id: null }));
      return;
    }
    await route(req, res, body);
  });
}
