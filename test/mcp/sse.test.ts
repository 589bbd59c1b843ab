import t from 'tap';
import { SseParser, type SseEvent } from '../../daemon/mcp/sse.js';

function feed(parser: SseParser, ...chunks: string[]): SseEvent[] {
  return chunks.flatMap((chunk) => parser.push(Buffer.from(chunk, 'utf8')));
}

t.test('events end at a blank line; LF, CRLF and CR all end a line', async (t) => {
  t.same(feed(new SseParser(1024), 'data: a\n\n', 'data: b\r\n\r\n', 'data: c\r\r'), [
    { type: 'message', data: 'a' }, { type: 'message', data: 'b' }, { type: 'message', data: 'c' },
  ]);
});

t.test('any split across chunks gives the same events, a CRLF split between chunks included', async (t) => {
  const text = 'event: message\r\ndata: {"id":1,\r\ndata: "x":"\u00e9\u4e16"}\r\n\r\n: keepalive\r\n\r\ndata: two\n\n';
  const bytes = Buffer.from(text, 'utf8');
  const whole = new SseParser(1024).push(bytes);
  t.same(whole, [{ type: 'message', data: '{"id":1,\n"x":"\u00e9\u4e16"}' }, { type: 'message', data: 'two' }]);
  for (let cut = 1; cut < bytes.length; cut += 1) {
    const parser = new SseParser(1024);
    t.same([...parser.push(bytes.subarray(0, cut)), ...parser.push(bytes.subarray(cut))], whole, `cut at ${cut}`);
  }
});

t.test('comments, unknown fields, id and retry are skipped; events without data are not dispatched', async (t) => {
  t.same(feed(new SseParser(1024), ': hi\n\nid: 7\nretry: 10\nfoo: bar\n\nevent: ping\n\ndata\n\n'), [{ type: 'message', data: '' }]);
  t.same(feed(new SseParser(1024), 'event: custom\ndata:no-space\n\n'), [{ type: 'custom', data: 'no-space' }]);
  t.same(feed(new SseParser(1024), '\ufeffdata: bom\n\n'), [{ type: 'message', data: 'bom' }], 'a leading BOM is dropped');
});

t.test('an event over the bound throws too_large, whether its line ends or not', async (t) => {
  t.throws(() => feed(new SseParser(64), `data: ${'x'.repeat(100)}`), { name: 'McpClientError', kind: 'too_large' }, 'an unfinished line');
  t.throws(() => feed(new SseParser(64), 'data: 12345678901234567890\n', 'data: 12345678901234567890\n', 'data: 12345678901234567890\n'), { name: 'McpClientError', kind: 'too_large' }, 'many lines of one event');
  const parser = new SseParser(64);
  for (let i = 0; i < 100; i += 1) t.equal(feed(parser, 'data: 12345678901234567890\n\n').length, 1);
  t.pass('events under the bound never add up');
});
