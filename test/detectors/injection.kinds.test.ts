// Issue 26, per kind and language: the rows written for it (scripts/injection-own.jsonl, seven
// languages) through the path each belongs to. A benign prompt (request, task, coding question) goes
// to the detector as a prompt; a benign tool output or model answer goes through the MCP results
// path and verify's data origin: none may be blocked and at most 2 % flagged. Each form of attack
// inside data is withheld on the MCP path in at least 90 % of its rows in every language, and in its
// held-out wordings (the development split) too.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { injectionDetector } from '../../daemon/detectors/injection.js';
import { injectionLevel } from '../../daemon/detectors/injection-config.js';
import { contentRules } from '../../daemon/mcp/content/effective.js';
import { inspect, strongest } from '../../daemon/mcp/content/inspect.js';

interface Row {
  text: string;
  label: 'attack' | 'benign';
  kind: string;
  lang: string;
  channel: 'prompt' | 'data';
  dev: boolean;
}
const ROWS: Row[] = fs
  .readFileSync(fileURLToPath(new URL('../../../scripts/injection-own.jsonl', import.meta.url)), 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => JSON.parse(l) as Row);
const LANGS = ['en', 'de', 'fr', 'es', 'it', 'nl', 'pl'];
const config = injectionDetector.parseConfig(undefined);
const rules = contentRules([], 'srv', 'tool', 'results').filter((r) => r.detector === 'injection');

type Verdict = 'BLOCK' | 'FLAG' | 'PASS';
/** The MCP results path: the text as a tool result's text item, the built-in rules; BLOCK withholds it. */
function mcp(text: string): Verdict {
  const seen = inspect({ content: [{ type: 'text', text }] }, rules, 'data', 10_000);
  if (!seen.ok) return 'BLOCK';
  const effect = strongest(seen.findings);
  return effect === 'BLOCK' ? 'BLOCK' : effect === 'FLAG' ? 'FLAG' : 'PASS';
}
/** The detector with verify's default injection policy, as a prompt or as data (an attachment). */
function detector(text: string, origin: 'prompt' | 'data'): Verdict {
  const [f] = injectionDetector.detect(text, config, { origin });
  if (f === undefined) return 'PASS';
  return injectionLevel(f.score, config) === 'high' ? 'BLOCK' : 'FLAG';
}

const groups = new Map<string, Row[]>();
for (const r of ROWS) groups.set(`${r.kind} ${r.lang}`, [...(groups.get(`${r.kind} ${r.lang}`) ?? []), r]);
const kinds = (label: Row['label']) => [...new Set(ROWS.filter((r) => r.label === label).map((r) => r.kind))];

t.test('every benign kind and every form of attack inside data has rows in all seven languages', async (t) => {
  t.same(kinds('benign').sort(), ['answer', 'code-question', 'request', 'task', 'tool-output']);
  t.same(kinds('attack').sort(), ['data-fake-turn', 'data-ignore', 'data-todo', 'data-tool-call', 'data-user-message']);
  for (const kind of [...kinds('benign'), ...kinds('attack')])
    for (const lang of LANGS) t.ok((groups.get(`${kind} ${lang}`)?.length ?? 0) >= 3, `${kind} ${lang}`);
});

for (const kind of kinds('benign'))
  t.test(`benign ${kind}: nothing blocked, at most 2 % flagged, in each language`, async (t) => {
    for (const lang of LANGS) {
      const rows = groups.get(`${kind} ${lang}`)!;
      const verdicts = rows.flatMap((r) => (r.channel === 'data' ? [mcp(r.text), detector(r.text, 'data')] : [detector(r.text, 'prompt')]));
      const raised = verdicts.filter((v) => v !== 'PASS').length;
      t.equal(verdicts.filter((v) => v === 'BLOCK').length, 0, `${kind} ${lang}: none of ${verdicts.length} blocked`);
      t.ok(raised <= Math.floor(0.02 * verdicts.length), `${kind} ${lang}: ${raised} of ${verdicts.length} flagged`);
    }
  });

for (const kind of kinds('attack'))
  t.test(`attack ${kind} inside a tool result: withheld on the MCP path in each language (>= 90 %, held-out wordings too)`, async (t) => {
    for (const lang of LANGS) {
      const rows = groups.get(`${kind} ${lang}`)!;
      const withheld = rows.filter((r) => mcp(r.text) === 'BLOCK');
      t.ok(withheld.length >= 0.9 * rows.length, `${kind} ${lang}: ${withheld.length} of ${rows.length}`);
      const dev = rows.filter((r) => r.dev);
      const devWithheld = dev.filter((r) => mcp(r.text) === 'BLOCK').length;
      t.ok(dev.length > 0 && devWithheld >= 0.9 * dev.length, `${kind} ${lang}, held-out wording: ${devWithheld} of ${dev.length}`);
      // The same text as a verify attachment (origin data) is found at least at FLAG.
      t.ok(
        rows.every((r) => detector(r.text, 'data') !== 'PASS'),
        `${kind} ${lang}: found by verify as data`,
      );
    }
  });
