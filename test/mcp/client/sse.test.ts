import t from 'tap';
import { formatSseEvent, SseParser, type SseEvent } from '../../../daemon/mcp/client/sse.js';

function feed(parser: SseParser, ...chunks: string[]): SseEvent[] {
  return chunks.flatMap((chunk) => parser.push(Buffer.from(chunk, 'utf8')));
}

t.test('events end at a blank line; LF, CRLF and CR all end a line', async (t) => {
  t.same(feed(new SseParser(1024), 'data: a\n\n', 'data: b\r\n\r\n', 'data: c\r\r'), [
    { type: 'message', data: 'a' },
    { type: 'message', data: 'b' },
    { type: 'message', data: 'c' },
  ]);
});

t.test('any split across chunks gives the same events, a CRLF split between chunks included', async (t) => {
  const text = 'event: message\r\ndata: {"id":1,\r\ndata: "x":"\u00e9\u4e16"}\r\n\r\n: keepalive\r\n\r\ndata: two\n\n';
  const bytes = Buffer.from(text, 'utf8');
  const whole = new SseParser(1024).push(bytes);
  t.same(whole, [
    { type: 'message', data: '{"id":1,\n"x":"\u00e9\u4e16"}' },
    { type: 'message', data: 'two' },
  ]);
  for (let cut = 1; cut < bytes.length; cut += 1) {
    const parser = new SseParser(1024);
    t.same([...parser.push(bytes.subarray(0, cut)), ...parser.push(bytes.subarray(cut))], whole, `cut at ${cut}`);
  }
});

t.test('comments and unknown fields are skipped; an event with neither data nor id nor retry is not returned', async (t) => {
  t.same(feed(new SseParser(1024), ': hi\n\nfoo: bar\n\nevent: ping\n\ndata\n\n'), [{ type: 'message', data: '' }]);
  t.same(feed(new SseParser(1024), 'event: custom\ndata:no-space\n\n'), [{ type: 'custom', data: 'no-space' }]);
  t.same(feed(new SseParser(1024), '\ufeffdata: bom\n\n'), [{ type: 'message', data: 'bom' }], 'a leading BOM is dropped');
});

t.test('an event over the bound throws too_large, whether its line ends or not', async (t) => {
  t.throws(() => feed(new SseParser(64), `data: ${'x'.repeat(100)}`), { name: 'McpClientError', kind: 'too_large' }, 'an unfinished line');
  t.throws(
    () => feed(new SseParser(64), 'data: 12345678901234567890\n', 'data: 12345678901234567890\n', 'data: 12345678901234567890\n'),
    { name: 'McpClientError', kind: 'too_large' },
    'many lines of one event',
  );
  const parser = new SseParser(64);
  for (let i = 0; i < 100; i += 1) t.equal(feed(parser, 'data: 12345678901234567890\n\n').length, 1);
  t.pass('events under the bound never add up');
});

t.test('id and retry are kept per event, also on an event without data; invalid ones are ignored as a browser does', async (t) => {
  const events = feed(
    new SseParser(1024),
    'id: 7\nretry: 10\n\n',
    'id: a1\nevent: note\ndata: x\n\n',
    'id\ndata: y\n\n',
    'retry: 1.5\nid: z\0z\ndata: w\n\n',
    'id: 1\nid: 2\ndata: v\n\n',
  );
  t.same(events, [
    { type: 'message', data: null, id: '7', retry: '10' },
    { type: 'note', data: 'x', id: 'a1' },
    { type: 'message', data: 'y', id: '' },
    { type: 'message', data: 'w' },
    { type: 'message', data: 'v', id: '2' },
  ]);
});

t.test('formatSseEvent writes every field back: parsing its output gives the same event', async (t) => {
  const samples: SseEvent[] = [
    { type: 'message', data: '{"a":1}\n{"b":2}', id: 'ev-1', retry: '3000' },
    { type: 'custom', data: ' leading space', id: '' },
    { type: 'message', data: null, id: '42' },
    { type: 'message', data: '', retry: '0' },
  ];
  for (const event of samples) t.same(new SseParser(1024).push(Buffer.from(formatSseEvent(event))), [event], JSON.stringify(event));
});

t.test('progress counts complete events and comment lines, never bytes of an unfinished one', async (t) => {
  const parser = new SseParser(1024);
  feed(parser, 'data: par', 't', 'ial');
  t.equal(parser.progress, 0, 'a trickle of bytes is no progress');
  t.notOk(parser.atBoundary);
  feed(parser, '\n');
  t.equal(parser.progress, 0, 'a complete data line of an unfinished event is none either');
  feed(parser, '\n');
  t.equal(parser.progress, 1, 'the event completed');
  t.ok(parser.atBoundary);
  feed(parser, ': keep-alive\n');
  t.equal(parser.progress, 2, 'a comment line counts');
  feed(parser, '\n\n\n');
  t.equal(parser.progress, 2, 'blank lines alone do not');
});
