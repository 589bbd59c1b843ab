// `npm test`: provides a PostgreSQL to the suite (DATABASE_URL's server, or an embedded one when
// it is unset), runs every compiled test file with tap, prints the coverage of what the tests ran
// (daemons and CLIs they spawn included), and ends with one line "N passed, M failed".
// Compiled files whose source is gone are removed first, so a deleted test cannot run from dist/.
// GATEWAY_TEST_COVERAGE=0 runs without coverage. `--database-tests` runs only the files that reach a
// database (CI's second pass, against the embedded PostgreSQL: see databaseTests()).
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { databaseServer } from './db-server.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
/** Where tap's json-summary reporter writes (package.json's "tap" section asks for it). */
const COVERAGE_SUMMARY = '.tap/report/coverage-summary.json';

async function testFiles(base: string, dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory() && entry.name !== 'bench' && entry.name !== 'helpers') out.push(...(await testFiles(base, full)));
    else if (entry.isFile() && entry.name.endsWith('.test.js')) out.push(path.relative(base, full));
  }
  return out.sort();
}

/** scripts/prune-dist.mjs, shared with `npm start`'s build; plain JavaScript outside tsc's tree, so loaded by path. */
async function pruneDist(base: string): Promise<string[]> {
  const mod = (await import(pathToFileURL(path.join(root, 'scripts/prune-dist.mjs')).href)) as { pruneDist(root: string): string[] };
  return mod.pruneDist(base);
}

/**
 * The files to run under `base` (a project root): the ones named, or every compiled test, after
 * removing compiled files whose source is gone.
 */
export async function testsToRun(base: string, named: string[]): Promise<{ files: string[]; pruned: string[] }> {
  const pruned = await pruneDist(base);
  const files = named.length > 0 ? named : await testFiles(base, path.join(base, 'dist/test'));
  return { files, pruned };
}

/** Test helpers that give a test a database: their own, or a daemon's (in process or spawned). */
const DATABASE_HELPERS = new Set(['db', 'gateway', 'spawn-daemon', 'embedded-daemon'].map((h) => `dist/test/helpers/${h}.js`));

/** Whether `file` or a test module it imports (relative imports inside dist/test/) is a database helper. */
async function reachesDatabase(base: string, file: string, seen: Set<string>): Promise<boolean> {
  if (DATABASE_HELPERS.has(file)) return true;
  if (seen.has(file) || !file.startsWith('dist/test/')) return false;
  seen.add(file);
  const text = await fs.readFile(path.join(base, file), 'utf8').catch(() => '');
  for (const [, spec] of text.matchAll(/from '(\.{1,2}\/[^']+\.js)'/g)) {
    if (await reachesDatabase(base, path.join(path.dirname(file), spec!), seen)) return true;
  }
  return false;
}

/** Tests of clients of the HTTP API: the CLI and the web console (in a browser). */
const THROUGH_THE_API = ['dist/test/cli/', 'dist/test/console/'];

/**
 * The files of `files` (relative to `base`) whose tests reach a database, for a second pass on
 * another PostgreSQL server (CI's embedded one): a file that never opens one would only repeat
 * itself. Left out as well: the CLI's tests and the console's browser tests, which reach the
 * database only through the HTTP API whose own tests run in that pass, and the fuzz tests, which
 * check input refused before any query.
 */
export async function databaseTests(base: string, files: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const file of files) {
    if (THROUGH_THE_API.some((dir) => file.startsWith(dir)) || file.endsWith('.fuzz.test.js')) continue;
    if (await reachesDatabase(base, file, new Set())) out.push(file);
  }
  return out;
}

interface Counts {
  total: number;
  covered: number;
}
type CoverageSummary = Record<string, { lines: Counts; branches: Counts; functions: Counts }>;

const pct = (c: Counts): string => (c.total === 0 ? '-' : `${((100 * c.covered) / c.total).toFixed(1)}%`);

/**
 * Lines for the end of the run from tap's json-summary: the product's code only (daemon/, cli/,
 * shared/, not test helpers), in total and by folder (daemon/ by its subfolders).
 */
export function coverageLines(summary: CoverageSummary, base: string): string[] {
  const kinds = ['lines', 'branches', 'functions'] as const;
  const total = { lines: { total: 0, covered: 0 }, branches: { total: 0, covered: 0 }, functions: { total: 0, covered: 0 } };
  const folders = new Map<string, Counts>();
  for (const [file, counts] of Object.entries(summary)) {
    if (file === 'total') continue;
    const parts = path.relative(base, file).split(path.sep);
    if (!['daemon', 'cli', 'shared'].includes(parts[0]!)) continue;
    for (const k of kinds) {
      total[k].total += counts[k].total;
      total[k].covered += counts[k].covered;
    }
    const folder = parts[0] === 'daemon' ? (parts.length > 2 ? `daemon/${parts[1]}` : 'daemon/*.ts') : parts[0]!;
    const f = folders.get(folder) ?? { total: 0, covered: 0 };
    f.total += counts.lines.total;
    f.covered += counts.lines.covered;
    folders.set(folder, f);
  }
  if (total.lines.total === 0) return ['# coverage: none recorded'];
  const width = Math.max(...[...folders.keys()].map((f) => f.length));
  return [
    `# coverage of daemon/, cli/, shared/ (the modules the tests loaded): lines ${pct(total.lines)}, branches ${pct(total.branches)}, functions ${pct(total.functions)}`,
    ...[...folders.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([f, c]) => `#   ${f.padEnd(width)}  lines ${pct(c)}`),
  ];
}

/** A failed top-level subtest ("file: subtest") and its failed assertions with their diagnostics. */
export interface Failure {
  readonly name: string;
  readonly detail: readonly string[];
}

/** Lines kept per failed assertion (its line and the start of its diagnostic block). */
const DETAIL_LINES = 14;

/**
 * Counts each file's top-level subtests; a file that failed without one counts as one failure.
 * `failures` names them with their failed assertions, so that the end of a long CI log says what
 * failed and how, even when only the tail of the log is kept.
 */
export function countResults(tapOutput: string): { passed: number; failed: number; failures: Failure[] } {
  let passed = 0;
  let failed = 0;
  let failedHere: Failure[] = [];
  let detail: string[] = [];
  let diagIndent = -1; // inside the diagnostics of a failed assertion: lines indented deeper than this
  let kept = 0;
  const failures: Failure[] = [];
  for (const line of tapOutput.split('\n')) {
    const indent = line.length - line.trimStart().length;
    if (diagIndent >= 0 && indent > diagIndent && line.trim() !== '') {
      if (kept++ < DETAIL_LINES) detail.push(line.trim());
      continue;
    }
    diagIndent = -1;
    const assertion = /^( {8,})not ok \d+ - ?(.*?)(?: # time=.*)?$/.exec(line);
    if (assertion) {
      detail.push(`not ok: ${assertion[2]}`);
      diagIndent = assertion[1]!.length;
      kept = 1;
      continue;
    }
    const sub = /^ {4}(not )?ok \d+ - ?(.*?)(?: # time=.*)?$/.exec(line);
    if (sub) {
      if (sub[1]) {
        failed += 1;
        failedHere.push({ name: sub[2]!, detail });
      } else passed += 1;
      detail = [];
      continue;
    }
    const top = /^(not )?ok \d+ - ?(.*?)(?: # time=.*)?$/.exec(line);
    if (top) {
      if (top[1] && failedHere.length === 0) {
        failed += 1;
        failedHere.push({ name: '(the file itself)', detail });
      }
      failures.push(...failedHere.map((f) => ({ name: `${top[2]}: ${f.name}`, detail: f.detail })));
      failedHere = [];
      detail = [];
    }
  }
  return { passed, failed, failures };
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const databaseOnly = args.includes('--database-tests');
  const { files: all, pruned } = await testsToRun(
    root,
    args.filter((a) => a !== '--database-tests'),
  );
  const files = databaseOnly ? await databaseTests(root, all) : all;
  if (databaseOnly) process.stdout.write(`# ${files.length} of ${all.length} test files reach a database: running those\n`);
  if (pruned.length > 0) process.stdout.write(`# removed ${pruned.length} compiled files whose source is gone: ${pruned.join(', ')}\n`);
  const coverage = process.env.GATEWAY_TEST_COVERAGE !== '0';
  await fs.rm(path.join(root, COVERAGE_SUMMARY), { force: true }); // never report an earlier run's figures
  const server = await databaseServer('test');
  process.stdout.write(server.embedded ? '# tests use an embedded PostgreSQL\n' : '# tests use the PostgreSQL named by DATABASE_URL\n');
  const tapBin = path.join(root, 'node_modules/.bin/tap');
  const child = spawn(tapBin, ['--reporter=tap', '--jobs=2', ...(coverage ? [] : ['--disable-coverage']), ...files], {
    cwd: root,
    env: { ...process.env, TEST_ADMIN_DATABASE_URL: server.url, DATABASE_URL: '' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
    process.stdout.write(chunk);
  });
  const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? 1)));
  await server.stop();
  if (coverage) {
    const summary = await fs.readFile(path.join(root, COVERAGE_SUMMARY), 'utf8').then(
      (text) => JSON.parse(text) as CoverageSummary,
      () => null,
    );
    const lines = summary === null ? ['# coverage: no report (tap wrote none)'] : coverageLines(summary, root);
    process.stdout.write(lines.join('\n') + '\n');
  }
  const { passed, failed, failures } = countResults(output);
  for (const f of failures) {
    process.stdout.write(`# failed: ${f.name}\n`);
    for (const d of f.detail) process.stdout.write(`#   | ${d}\n`);
  }
  process.stdout.write(`${passed} passed, ${failed} failed\n`);
  process.exit(code !== 0 || failed > 0 || passed === 0 ? 1 : 0);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) void main();
