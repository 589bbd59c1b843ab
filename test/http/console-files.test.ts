// The web console's files (http/console-files.ts) as the daemon serves them at /console: the page,
// its one script and one stylesheet, each with the strict Content-Security-Policy and the other
// security headers, an ETag answered 304; any other name is 404, and no path (dot segments, encoded
// or not, backslashes, absolute paths) reaches a file outside dist/console/.
import http from 'node:http';
import t from 'tap';
import { CONSOLE_CSP } from '../../daemon/http/console-files.js';
import { startTestGateway } from '../helpers/gateway.js';

const gw = await startTestGateway(t);

/** A raw GET: the path goes on the wire exactly as written (fetch would resolve dot segments first). */
function rawGet(
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  const url = new URL(gw.url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path, method: 'GET', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

t.test('the page, its script and stylesheet, with the security and cache headers', async (t) => {
  const page = await rawGet('/console/');
  t.equal(page.status, 200);
  t.match(page.headers['content-type'], /^text\/html; charset=utf-8/);
  t.equal(page.headers['content-security-policy'], CONSOLE_CSP);
  t.match(CONSOLE_CSP, /default-src 'self'/);
  t.match(CONSOLE_CSP, /frame-ancestors 'none'/);
  t.notMatch(CONSOLE_CSP, /unsafe-inline|unsafe-eval|\*/, 'no inline code, no eval, no wildcard source');
  t.equal(page.headers['x-content-type-options'], 'nosniff');
  t.equal(page.headers['referrer-policy'], 'no-referrer');
  t.equal(page.headers['x-frame-options'], 'DENY');
  t.equal(page.headers['cache-control'], 'no-cache');
  t.match(page.text, /<script type="module" src="\/console\/console.js"><\/script>/);
  t.notMatch(page.text, /<script>|<style|\sstyle=|\son[a-z]+=|https?:\/\//i, 'no inline script, style or handler, nothing from outside');
  t.equal((await rawGet('/console')).text, page.text, '/console is the page too');
  t.equal((await rawGet('/console/index.html')).text, page.text);

  const js = await rawGet('/console/console.js');
  t.equal(js.status, 200);
  t.match(js.headers['content-type'], /^text\/javascript/);
  t.equal(js.headers['content-security-policy'], CONSOLE_CSP);
  t.notMatch(js.text, /https?:\/\/(?!www\.w3\.org)/, 'the script loads nothing from outside');
  const css = await rawGet('/console/console.css');
  t.equal(css.status, 200);
  t.match(css.headers['content-type'], /^text\/css/);
  t.notMatch(css.text, /@import|url\(/, 'the stylesheet loads nothing');

  const again = await rawGet('/console/console.js', { 'if-none-match': js.headers.etag! });
  t.equal(again.status, 304, 'the ETag revalidates');
  t.equal(again.text, '');
});

t.test('unknown names are 404; no path leaves dist/console', async (t) => {
  for (const path of [
    '/console/app.js',
    '/console/console.js.map',
    '/console/../package.json',
    '/console/%2e%2e/package.json',
    '/console/%2E%2E%2Fpackage.json',
    '/console/..%2f..%2fpackage.json',
    '/console/..%5c..%5cpackage.json',
    '/console/....//package.json',
    '/console//etc/passwd',
    '/console/%2fetc%2fpasswd',
    '/console/console.js%00.html',
    '/console/sub/index.html',
    '/console/tsconfig.json',
    '/console/main.ts',
  ]) {
    const res = await rawGet(path);
    t.not(res.status, 200, path);
    t.notMatch(res.text, /"name": "governance-gateway"|root:x:0|"compilerOptions"|import /, `${path}: no file content`);
    if (res.status === 404) t.match(JSON.parse(res.text), { error: { code: 'not_found' } }, path);
  }
  const post = await fetch(`${gw.url}/console/`, { method: 'POST' });
  t.equal(post.status, 405, 'the console is read only');
});
