import t from 'tap';
import type { TraceInput } from '../../daemon/ledger/streams.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

async function seed(gw: TestGateway, input: Partial<TraceInput> & { decision: string }) {
  return gw.gateway.writer.append('default', { traceType: 'VERIFY', content: {}, ...input });
}

async function csv(gw: TestGateway, query = '') {
  const res = await fetch(`${gw.url}/api/v1/export?format=csv${query}`, { headers: { authorization: `Bearer ${gw.adminToken}` } });
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}

t.test('CSV: header, rows starting with id and sequence_num, CRLF, quoting, formula escaping, no raw content', async (t) => {
  const gw = await startTestGateway(t);
  const a = await seed(gw, { decision: 'PASSED', reason: 'line one\nline two', content: { display: '=HYPERLINK("http://evil")' } });
  await seed(gw, { decision: 'FLAGGED', reason: 'has, comma and "quotes"', content: { display: '@SUM(A1)' } });
  await seed(gw, { decision: 'PASSED', content: { display: '-2+3' } });
  await seed(gw, { decision: 'PASSED', content: { display: '\tTAB' } });
  await seed(gw, { decision: 'MODIFIED', content: { display: 'card [PAYMENT_CARD]', raw: { prompt: 'card 4111 1111 1111 1111' }, extracted_text: '4111 1111 1111 1111' } });
  const res = await csv(gw);
  t.equal(res.status, 200);
  t.match(res.type, /^text\/csv/);
  const lines = res.text.split('\r\n');
  t.equal(lines[0], 'id,sequence_num,timestamp,decision,reason,integrity_hash,action_name,environment,agent_id,content_state,display_content,userAction,justification');
  t.match(lines[1], new RegExp(`^${a.id},1,`));
  t.match(res.text, /"line one\nline two"/, 'a field with a bare LF is quoted');
  t.match(res.text, /"has, comma and ""quotes"""/);
  t.match(res.text, /'=HYPERLINK\(""http:\/\/evil""\)/, 'formula cells are escaped');
  t.match(res.text, /,'@SUM\(A1\),/);
  t.match(res.text, /,'-2\+3,/);
  t.match(res.text, /,'\tTAB,/);
  t.notMatch(res.text, /4111/, 'never raw content');
  t.equal(res.text.endsWith('\r\n'), true);
});

t.test('filters and validation: decision and time_range as on the list, other formats 400', async (t) => {
  const gw = await startTestGateway(t);
  await seed(gw, { decision: 'PASSED', content: { display: 'a' } });
  await seed(gw, { decision: 'BLOCKED' });
  await seed(gw, { decision: 'PASSED', environment: 'dev', content: { display: 'c' } });
  const blocked = await csv(gw, '&decision=BLOCKED');
  t.equal(blocked.text.trim().split('\r\n').length, 2, 'header and the one BLOCKED row');
  t.equal((await csv(gw, '&time_range=all')).text.trim().split('\r\n').length, 4, 'every environment: no other filters apply');
  for (const bad of ['format=json', 'format=csv&decision=NOPE', 'format=csv&time_range=1y']) {
    const res = await fetch(`${gw.url}/api/v1/export?${bad}`, { headers: { authorization: `Bearer ${gw.adminToken}` } });
    t.equal(res.status, 400, bad);
    t.equal((await res.json()).error.code, 'validation_error');
  }
});

t.test('the row cap ends the file with a # truncated: line', async (t) => {
  const gw = await startTestGateway(t, { env: { GATEWAY_EXPORT_ROW_CAP: '3' } });
  for (let i = 0; i < 5; i++) await seed(gw, { decision: 'PASSED', content: { display: `p${i}` } });
  const lines = (await csv(gw)).text.trim().split('\r\n');
  t.equal(lines.length, 5, 'header, three rows, the marker');
  t.match(lines.at(-1), /^# truncated:/);
  const exact = await startTestGateway(t, { env: { GATEWAY_EXPORT_ROW_CAP: '5' } });
  for (let i = 0; i < 5; i++) await seed(exact, { decision: 'PASSED', content: { display: `p${i}` } });
  t.notMatch((await csv(exact)).text, /# truncated/, 'exactly the cap is not truncated');
});
