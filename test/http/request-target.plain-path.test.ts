// parseRequestTarget takes a path of plain segments as it is, without the URL parser: for every
// such path (and the targets around it the parser still handles) the result is the parser's own.
import t from 'tap';
import { parseRequestTarget } from '../../daemon/http/request-target.js';

const viaParser = (target: string) => {
  const url = new URL(target, 'http://gateway');
  return { pathname: url.pathname, query: [...url.searchParams], rawQuery: url.search.slice(1) };
};

t.test('a plain path, and every target near one, reads as the URL parser reads it', async (t) => {
  const targets = [
    '/',
    '/healthz',
    '/api/v1/mcp/proxy/0b5e2a9c-6a3e-4a43-9d55-3f1c2f3b8a10',
    '/api/v1/traces/',
    '/api/v1//traces',
    '/api/v1/traces?limit=5&x=a%20b',
    '/api/v1/./traces',
    '/api/v1/x/../traces',
    '/api/v1/%7Etraces',
    '/api/v1/tr aces',
    '/api/v1/traces#frag',
    '/api/v1/traces?',
    '/api/v1/ünï',
  ];
  for (const target of targets) {
    const got = parseRequestTarget(target);
    t.same({ pathname: got.pathname, query: [...got.searchParams], rawQuery: got.rawQuery }, viaParser(target), target);
  }
});

t.test('a target that is not origin form still routes on its raw path', async (t) => {
  t.equal(parseRequestTarget('//evil.example/api').pathname, '//evil.example/api');
  t.equal(parseRequestTarget('*').pathname, '*');
  t.equal(parseRequestTarget(undefined).pathname, '/');
});
