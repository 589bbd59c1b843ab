#!/usr/bin/env node
// Writes scripts/injection-own.jsonl: the rows written for issue 26, composed from the parts in
// injection-own-parts.mjs and injection-own-prompts.mjs (all written for this project) in the seven
// supported languages. Each row records its origin, language, channel (`prompt`: what a user sends;
// `data`: what a tool returns or an attachment holds) and whether it belongs to the development split
// (`dev`): attacks whose wording is the last of its form and language, tool outputs whose human
// sentence is every fourth, prompts every fifth by position. Deterministic: run it again, same file.
// Run: node scripts/injection-own.mjs
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BODY, FORMS, GOALS, HUMAN, LANGS, NAMES } from './injection-own-parts.mjs';
import { ANSWERS, CODE_QUESTIONS, REQUESTS, SNIPPETS, TASKS } from './injection-own-prompts.mjs';

const OUT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'injection-own.jsonl');
const ORIGIN = 'written for this project (issue 26), composed by scripts/injection-own.mjs';

/** Tool outputs of every common kind: `body` is ordinary text, `payload` the sentence placed in it. */
const CARRIERS = [
  [
    'email',
    (b, p, n) =>
      `From: ${n} <${n.split(' ')[0].toLowerCase()}@example.org>\nTo: team@example.org\nSubject: Update\nDate: Tue, 14 May 2024 09:12\n\n${b}\n\n${p}\n\n${n}`,
  ],
  [
    'calendar',
    (b, p, n) =>
      JSON.stringify({
        event: 'Quarterly review',
        start: '2024-05-30T10:00:00Z',
        end: '2024-05-30T11:00:00Z',
        location: 'Room 4B',
        organizer: n,
        description: `${b} ${p}`,
      }),
  ],
  ['file', (b, p) => `# notes.md\n\n${b}\n\n${p}\n\n- budget: 12,400\n- owner: ops`],
  [
    'web-page',
    (b, p, n) =>
      `<html><head><title>${n} – blog</title></head><body><h1>News</h1><p>${b}</p><p>${p}</p><footer>© 2024</footer></body></html>`,
  ],
  [
    'bank-statement',
    (b, p) =>
      `Date | Description | Amount | Balance\n2024-03-01 | Rent | -950.00 | 2,310.40\n2024-03-04 | ${p} | -12.99 | 2,297.41\n2024-03-07 | Salary | 3,120.00 | 5,417.41\n${b}`,
  ],
  [
    'chat',
    (b, p, n) =>
      JSON.stringify({
        messages: [
          { from: n, text: b },
          { from: 'Alex', text: p },
          { from: n, text: 'ok 👍' },
        ],
      }),
  ],
  [
    'json',
    (b, p) => JSON.stringify({ id: 4812, status: 'open', title: 'Customer ticket', body: b, note: p, tags: ['billing', 'priority:low'] }),
  ],
  ['yaml', (b, p) => `ticket: 4812\nstatus: open\nsummary: |\n  ${b}\ncomment: "${p.replace(/"/g, "'")}"\nassignee: ops`],
  ['table', (b, p) => `id,name,comment\n1,Widget A,${b.replace(/,/g, ';')}\n2,Widget B,${p.replace(/,/g, ';')}\n3,Widget C,in stock`],
  [
    'log',
    (b, p) =>
      `2024-05-14T09:12:01Z INFO job started\n2024-05-14T09:12:03Z INFO ${b}\n2024-05-14T09:12:04Z WARN ${p}\n2024-05-14T09:12:05Z INFO job finished in 4.1s`,
  ],
];

const rows = [];
const add = (row) => rows.push({ ...row, origin: ORIGIN });
const cap = (s) => s.charAt(0).toUpperCase() + s.slice(1);
/**
 * The digits of account numbers, amounts and codes redrawn per row (a fixed hash of the row's
 * position), so that no particular IBAN or amount leans to either label: the first model flagged an
 * ordinary German refund request because its IBAN was one of the goals'.
 */
const redraw = (text, seed) => {
  let h = (seed * 2654435761) >>> 0;
  return text.replace(/\d/g, () => {
    h = (Math.imul(h ^ (h >>> 15), 2246822507) + 0x9e3779b9) >>> 0;
    return String(h % 10);
  });
};
/** Rows numbered as composed; only sentences and goals are redrawn, never a carrier's dates and times. */
let row = 0;

for (const lang of LANGS) {
  const bodies = BODY[lang];
  const name = (i) => NAMES[i % NAMES.length];
  // Tool outputs whose imperatives speak to their human readers: every body in every carrier with
  // every sentence, so that no carrier, sender or body leans to the attacks.
  HUMAN[lang].forEach((sentence, h) =>
    CARRIERS.forEach(([carrier, make], c) =>
      bodies.forEach((body, b) =>
        add({
          text: make(body, redraw(sentence, ++row), name(h + c + b)),
          label: 'benign',
          kind: 'tool-output',
          lang,
          channel: 'data',
          carrier,
          source: `own:tool-output/${carrier}`,
          dev: h % 4 === 3,
        }),
      ),
    ),
  );
  // Attacks inside tool outputs: every form, wording and goal, each in one carrier.
  for (const [form, byLang] of Object.entries(FORMS)) {
    const wordings = byLang[lang];
    wordings.forEach((wording, w) =>
      GOALS[lang].forEach((goal, g) => {
        const [carrier, make] = CARRIERS[(w * 3 + g) % CARRIERS.length];
        const payload = wording
          .replaceAll('{goal}', redraw(goal, ++row))
          .replaceAll('{Goal}', cap(redraw(goal, row)))
          .replaceAll('{name}', name(g));
        add({
          text: make(bodies[g % bodies.length], payload, name(g + 1)),
          label: 'attack',
          kind: `data-${form}`,
          lang,
          channel: 'data',
          carrier,
          source: `own:data-${form}/${carrier}`,
          wording: w,
          goal: g,
          dev: w === wordings.length - 1,
        });
      }),
    );
  }
  // Prompts: requests with their input, model answers, short tasks, coding questions.
  const inputs = [...bodies, ...HUMAN[lang].slice(0, 3)];
  REQUESTS[lang].forEach((t, i) =>
    inputs.forEach(
      (input, j) =>
        (i + j) % 2 === 0
        && add({
          text: t.replace('{input}', input),
          label: 'benign',
          kind: 'request',
          lang,
          channel: 'prompt',
          source: 'own:request',
          dev: (i + j) % 5 === 0,
        }),
    ),
  );
  ANSWERS[lang].forEach((text, i) =>
    add({ text, label: 'benign', kind: 'answer', lang, channel: 'data', source: 'own:answer', dev: i % 3 === 2 }),
  );
  TASKS[lang].forEach((text, i) =>
    add({ text, label: 'benign', kind: 'task', lang, channel: 'prompt', source: 'own:task', dev: i % 5 === 4 }),
  );
  CODE_QUESTIONS[lang].forEach((q, i) =>
    SNIPPETS.forEach((code, j) =>
      add({
        text: q.replace('{code}', code),
        label: 'benign',
        kind: 'code-question',
        lang,
        channel: 'prompt',
        source: 'own:code-question',
        dev: (i + j) % 5 === 0,
      }),
    ),
  );
}

fs.writeFileSync(OUT, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
const count = (f) => rows.filter(f).length;
console.log(
  `wrote ${OUT}: ${rows.length} rows (${count((r) => r.label === 'attack')} attacks, ${count((r) => r.dev)} in the development split)`,
);
