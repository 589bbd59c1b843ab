// CPU per KB of prompt for each prompt detector on a realistic mixed prompt (mail thread with a
// signature, support ticket, HR note, code, logs, CSV), against the budget of 0.2 ms per KB and a
// baseline of one linear regex pass over the same text. Add a detector by appending to DETECTORS.
import type { Detector, Finding } from '../../daemon/detectors/types.js';
import { piiDetector } from '../../daemon/detectors/pii/index.js';
import { injectionDetector } from '../../daemon/detectors/injection.js';
import { scoreModel } from '../../daemon/detectors/injection-model.js';
import { shippedModel } from '../../daemon/detectors/injection-weights.js';
import { REPORTING_CUES } from '../../daemon/detectors/injection-rules.js';
import { keywordsDetector, regexDetector } from '../../daemon/detectors/keywords.js';
import { secretsDetector } from '../../daemon/detectors/secrets.js';

export interface BenchEntry {
  readonly name: string;
  readonly detect: (text: string) => readonly Finding[];
}

/** A detector with its policy configuration parsed once (undefined: the detector's defaults). */
export function entry<C>(detector: Detector<C>, config?: unknown, name = detector.name): BenchEntry {
  const parsed = detector.parseConfig(config);
  return { name, detect: (text) => detector.detect(text, parsed) };
}

export const DETECTORS: BenchEntry[] = [
  entry(piiDetector),
  entry(secretsDetector),
  entry(injectionDetector),
  // The trained classifier on its own (its cost is part of the injection line above).
  {
    name: 'injection classifier',
    detect: (text) => {
      scoreModel(text, shippedModel(), REPORTING_CUES);
      return [];
    },
  },
  entry(
    keywordsDetector,
    {
      words: [
        'Project Falcon',
        'Bluebird',
        'confidential',
        'internal only',
        'merger',
        'layoff',
        'Q3 forecast',
        'salary band',
        'codename',
        'do not distribute',
      ],
    },
    'keywords (10 words)',
  ),
  entry(
    regexDetector,
    {
      patterns: [
        { pattern: String.raw`\bEMP-\d{6}\b`, entity: 'EMPLOYEE_ID' },
        { pattern: String.raw`\b[a-z0-9-]+\.corp\.internal\b`, entity: 'INTERNAL_HOST', case_insensitive: true },
        { pattern: String.raw`\b(?:INC|CHG)\d{7}\b`, entity: 'TICKET' },
      ],
    },
    'regex (3 patterns)',
  ),
];

export const BUDGET_MS_PER_KB = 0.2;

const SECTIONS = [
  `From: Jennifer Walsh <jennifer.walsh@gmail.com>
Sent: Tuesday, 14 May 2024 09:12
Subject: RE: Q2 supplier review

Hi team, following up on yesterday's call. The supplier confirmed the revised price list (version 3.2.1)
and the delivery window of 2024-06-01 to 2024-06-15. Order #112-4839201-7734512 is already in transit,
UPS tracking 1Z999AA10123456784. Please summarise the open points and draft a reply that keeps the
tone friendly but firm about the penalty clause in section 4.2.

Best regards,
Jennifer Walsh | Procurement Lead
Mobile (415) 555-2671 | Office +44 20 7946 0321
`,
  `Sehr geehrte Damen und Herren,
bitte überweisen Sie die Erstattung in Höhe von 1.249,00 € auf mein Konto DE89 3704 0044 0532 0130 00.
Meine Kundennummer ist 100234567, die Rechnung FA-2024-000318 vom 12.03.2024 liegt bei. Telefonisch
erreichen Sie mich unter 030 12345678 (Mo–Fr 9–17 Uhr). Vielen Dank und freundliche Grüße, Anna Schmidt
`,
  `Note RH : le salarié a transmis son numéro de sécurité sociale 1 85 05 78 006 084 36 ainsi que son
RIB. Merci de vérifier la période d'essai (du 01/09/2024 au 30/11/2024) et de préparer le contrat en
version 2.14. Contact : camille.dubois@orange.fr, 06 12 34 56 78.
`,
  `\`\`\`ts
import { randomUUID } from 'node:crypto';
const REQUEST_ID = '123e4567-e89b-12d3-a456-426614174000';
export async function retry<T>(fn: () => Promise<T>, attempts = 3): Promise<T> {
  for (let i = 0; i < attempts; i++) {
    try { return await fn(); } catch (err) { if (i === attempts - 1) throw err; await sleep(2 ** i * 100); }
  }
  throw new Error('unreachable');
}
// pinned: node 20.11.1, typescript 5.3.3, commit 9fceb02d0ae598e95dc970b74767f19372d61af8
\`\`\`
`,
  `2024-05-02T11:02:13.456Z INFO  gateway listening on 0.0.0.0:8080 (pid 41872)
2024-05-02T11:02:14.001Z WARN  upstream 10.0.4.17:5432 slow query 812ms
2024-05-02T11:02:15.233Z INFO  81.2.69.160 - - "POST /api/v1/verify HTTP/1.1" 200 1532 "-" "curl/8.5.0"
2024-05-02T11:02:16.118Z ERROR request 7f3a2c1e failed: ECONNRESET after 30000ms, retry 2/3
`,
  `sku,description,qty,unit_price,total
A-1001,USB-C cable 2m,12,9.99,119.88
A-1002,Laptop stand,3,49.00,147.00
B-2040,Monitor 27" 4K,2,329.90,659.80
C-0007,Ergonomic chair,1,412.50,412.50
`,
  `Please rewrite the paragraph below for a non-technical audience, keep it under 120 words and avoid
jargon. Our service processes roughly 15000 requests per minute across 3 regions; p99 latency stays
below 250 ms and the error budget for the quarter is 0.1%. Migration to the new cluster is planned for
Q3, after the security review and the load test with 2x the current peak traffic.
`,
];

/** About `kb` KB of realistic prompt text, the sections repeated in order. */
export function realisticPrompt(kb = 8): string {
  let text = '';
  for (let i = 0; text.length < kb * 1024; i++) text += SECTIONS[i % SECTIONS.length] + '\n';
  return text;
}

/**
 * User+system CPU milliseconds per KB of text for `run` over `rounds` rounds of ~100 ms each. The
 * best round is the detector's own cost (on a shared machine other processes only ever add to a
 * round's figure, through caches and frequency); the median shows what contention made of it.
 */
export function cpuMsPerKb(run: (text: string) => unknown, text: string, rounds = 10): { best: number; median: number } {
  for (let i = 0; i < 20; i++) run(text);
  const perKb: number[] = [];
  for (let r = 0; r < rounds; r++) {
    let iterations = 0;
    const wall = Date.now();
    const before = process.cpuUsage();
    while (Date.now() - wall < 100) {
      run(text);
      iterations++;
    }
    const used = process.cpuUsage(before);
    perKb.push((used.user + used.system) / 1000 / iterations / (text.length / 1024));
  }
  perKb.sort((a, b) => a - b);
  return { best: perKb[0]!, median: perKb[Math.floor(rounds / 2)]! };
}

/** Inputs built to make the recognizers work hardest per KB (one candidate every few bytes). */
export const ADVERSARIAL: Readonly<Record<string, string>> = {
  'phone-like numbers with context': 'Tel. 030 1234567, '.repeat(60),
  'bare digit strings': '0301234567 '.repeat(100),
  'grouped digits': '1234 5678 9012 3456 7890 1234 5678 9012 '.repeat(30),
  'at signs': 'a@b.c x@y.zz '.repeat(80),
  'hex and colons': 'fe:ab:cd:01:23:45 '.repeat(60),
  'key assignments (secrets)': 'password = "Xy7kP2mQ9vR4tL8w" '.repeat(35),
  'base64 runs (injection)': 'aWdub3JlIHRoaXMgbGluZSBwbGVhc2U= '.repeat(32),
};

export function benchDetectors(): void {
  const text = realisticPrompt();
  const baseline = cpuMsPerKb((t) => t.match(/\d+/g), text);
  const fmt = (r: { best: number; median: number }): string => `${r.best.toFixed(4)} ms/KB (median ${r.median.toFixed(4)})`;
  console.log(
    `\nprompt detectors, ${(text.length / 1024).toFixed(1)} KB mixed prompt, budget ${BUDGET_MS_PER_KB} ms CPU per KB (best of 10 rounds)`,
  );
  console.log(`  ${'one /\\d+/g pass (baseline)'.padEnd(34)} ${fmt(baseline)}`);
  for (const d of DETECTORS) {
    const findings = d.detect(text).length;
    const r = cpuMsPerKb(d.detect, text);
    const verdict = r.best <= BUDGET_MS_PER_KB ? 'within budget' : 'OVER BUDGET';
    console.log(`  ${d.name.padEnd(34)} ${fmt(r)}  ${(r.best / baseline.best).toFixed(1)}x baseline  ${findings} findings  ${verdict}`);
    for (const [name, input] of Object.entries(ADVERSARIAL)) {
      console.log(`    worst case: ${name.padEnd(32)} ${fmt(cpuMsPerKb(d.detect, input, 3))}`);
    }
  }
}
