// `npm test`: provides a PostgreSQL to the suite (DATABASE_URL's server, or an embedded one when
// it is unset), runs every compiled test file with tap, and ends with one line "N passed, M failed".
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { databaseServer } from './db-server.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

async function testFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory() && entry.name !== 'bench' && entry.name !== 'helpers') out.push(...(await testFiles(full)));
    else if (entry.isFile() && entry.name.endsWith('.test.js')) out.push(path.relative(root, full));
  }
  return out.sort();
}

/**
 * Counts each file's top-level subtests; a file that failed without one counts as one failure.
 * `failures` names them ("file: subtest"), so that the end of a long CI log says what failed.
 */
export function countResults(tapOutput: string): { passed: number; failed: number; failures: string[] } {
  let passed = 0;
  let failed = 0;
  let failedHere: string[] = [];
  const failures: string[] = [];
  for (const line of tapOutput.split('\n')) {
    const sub = /^ {4}(not )?ok \d+ - ?(.*?)(?: # time=.*)?$/.exec(line);
    if (sub) {
      if (sub[1]) { failed += 1; failedHere.push(sub[2]!); } else passed += 1;
      continue;
    }
    const top = /^(not )?ok \d+ - ?(.*?)(?: # time=.*)?$/.exec(line);
    if (top) {
      if (top[1] && failedHere.length === 0) { failed += 1; failedHere.push('(the file itself)'); }
      failures.push(...failedHere.map((name) => `${top[2]}: ${name}`));
      failedHere = [];
    }
  }
  return { passed, failed, failures };
}

async function main(): Promise<void> {
  const files = process.argv.length > 2 ? process.argv.slice(2) : await testFiles(path.join(root, 'dist/test'));
  const server = await databaseServer('test');
  process.stdout.write(server.embedded ? '# tests use an embedded PostgreSQL\n' : '# tests use the PostgreSQL named by DATABASE_URL\n');
  const tapBin = path.join(root, 'node_modules/.bin/tap');
  const child = spawn(tapBin, ['--reporter=tap', '--jobs=2', ...files], {
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
  const { passed, failed, failures } = countResults(output);
  for (const f of failures) process.stdout.write(`# failed: ${f}\n`);
  process.stdout.write(`${passed} passed, ${failed} failed\n`);
  process.exit(code !== 0 || failed > 0 || passed === 0 ? 1 : 0);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) void main();
