// A stdio server's own request during a tools/call (issue 28: sampling here) reaches the calling
// client on the call's answer stream (daemon/mcp/proxy/stdio-relay.ts), and the client's answer goes
// back to the process under the server's id: server-everything's trigger-sampling-request in its
// sandbox, the official SDK client with the sampling capability. The client's answer is inspected
// under the argument policies as on the HTTP path: a cloud key in it is blocked by default, the
// process gets -32003 in the client's place (never the key) and the client's POST a 403.
import t from 'tap';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestGateway } from '../../helpers/gateway.js';
import { CLOUD_KEY } from '../../helpers/hostile-content-server.js';
import { activeStdio, everything, STDIO_ON, textOf } from '../../helpers/stdio-proxy.js';

t.test(
  'sampling from a stdio server: relayed to the calling client, its answer back to the process; a leaking answer withheld',
  async (t) => {
    // The detectors' budgets out of the way: on a loaded machine a harmless answer must not fail closed.
    const gw = await startTestGateway(t, {
      env: { ...STDIO_ON, GATEWAY_DETECTOR_BUDGET_MS: '600000', GATEWAY_INSPECTION_BUDGET_MS: '600000' },
    });
    const id = await activeStdio(t, gw, everything, {});
    const answers: string[] = [];
    const client = new Client({ name: 'stdio-sampling-test', version: '1.0.0' }, { capabilities: { sampling: {} } });
    client.setRequestHandler(CreateMessageRequestSchema, (request) => {
      const asked = JSON.stringify(request.params.messages);
      answers.push(asked);
      const text = asked.includes('leak') ? `use aws_access_key_id ${CLOUD_KEY}` : 'a sampled answer from the client';
      return { model: 'test-model', role: 'assistant', content: { type: 'text', text } };
    });
    const errors: string[] = [];
    client.onerror = (err) => errors.push(err.message);
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${gw.url}/api/v1/mcp/proxy/${id}`), {
        requestInit: { headers: { authorization: `Bearer ${gw.adminToken}` } },
      }),
    );
    t.teardown(() => client.close());

    const sampled = await client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'say something', maxTokens: 5 } });
    t.equal(answers.length, 1, 'the server asked the calling client');
    t.match(answers[0], /say something/, "the server's request as it made it");
    t.match(textOf(sampled), /a sampled answer from the client/, "the client's answer reached the process, and its result the client");
    t.notOk(sampled.isError, 'the tool succeeded');

    const leaked = await client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'leak it', maxTokens: 5 } });
    t.equal(answers.length, 2, 'asked again');
    t.match(textOf(leaked), /-32003/, 'the process got the refusal in the client’s place');
    t.notMatch(textOf(leaked), CLOUD_KEY, 'the key never reached the server');
    await eventually(async () => errors.length > 0);
    t.match(errors[0], /POSTing to endpoint: .*CONTENT_BLOCKED/, "the client's POST of its answer was refused");
  },
);
