#!/usr/bin/env node
// `npm start` runs this before gatewayd: tsc runs only when the sources changed since the last
// build made here (a TypeScript file under the tsconfig's include added, removed or newer, or the
// tsconfig or package files newer), since even a build with nothing to do costs seconds. The stamp
// (dist/.build-stamp) lists the sources built and the time that build started, less 100 ms for
// file timestamps taken from the kernel's coarse clock, so a file saved while tsc ran is seen as
// changed next time.
// Any doubt (no stamp, unreadable stamp, no dist/daemon/main.js) means build. After a build, compiled
// files whose source is gone are removed (prune-dist.mjs). The web console (console/, any file) is
// built with it (build-console.mjs), so `npm start` always serves the console of these sources, and
// so is gatewayctl's command manifest (cli-manifest.mjs).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildConsole } from './build-console.mjs';
import { writeCliManifest } from './cli-manifest.mjs';
import { pruneDist } from './prune-dist.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const stampFile = path.join(root, 'dist', '.build-stamp');
const INPUTS = ['tsconfig.json', 'package.json', 'package-lock.json'];

/** Top-level directories the tsconfig's include names ("daemon/**\/*.ts" -> daemon). */
function sourceDirs() {
  const { include } = JSON.parse(fs.readFileSync(path.join(root, 'tsconfig.json'), 'utf8'));
  return [...new Set(include.map((pattern) => pattern.split('/')[0]))];
}

function sources() {
  const files = [];
  for (const dir of sourceDirs()) {
    for (const entry of fs.readdirSync(path.join(root, dir), { recursive: true, withFileTypes: true })) {
      if (entry.isFile() && entry.name.endsWith('.ts'))
        files.push(path.relative(root, path.join(entry.parentPath ?? entry.path, entry.name)));
    }
  }
  for (const entry of fs.readdirSync(path.join(root, 'console'), { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) files.push(path.relative(root, path.join(entry.parentPath ?? entry.path, entry.name)));
  }
  return files.sort();
}

function staleBecause(files) {
  if (!fs.existsSync(path.join(root, 'dist', 'daemon', 'main.js'))) return 'no build yet';
  if (!fs.existsSync(path.join(root, 'dist', 'console', 'console.js'))) return 'no console build yet';
  let stamp;
  try {
    stamp = JSON.parse(fs.readFileSync(stampFile, 'utf8'));
  } catch {
    return 'no build stamp';
  }
  if (typeof stamp.builtAt !== 'number' || !Array.isArray(stamp.files)) return 'unreadable build stamp';
  if (stamp.files.join('\n') !== files.join('\n')) return 'sources added or removed';
  const newer = [...files, ...INPUTS].find((f) => {
    try {
      return fs.statSync(path.join(root, f)).mtimeMs >= stamp.builtAt;
    } catch {
      return false; // an optional input (package-lock.json) that is not there
    }
  });
  return newer ? `${newer} changed` : null;
}

const files = sources();
const reason = process.argv.includes('--force') ? 'forced' : staleBecause(files);
if (reason === null) process.exit(0);
process.stderr.write(`build: compiling (${reason})\n`);
const builtAt = Date.now() - 100;
const tsc = spawnSync(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], {
  cwd: root,
  stdio: 'inherit',
});
if (tsc.status !== 0) {
  try {
    fs.rmSync(stampFile, { force: true });
  } catch {
    /* the next start builds anyway */
  }
  process.exit(tsc.status ?? 1);
}
pruneDist(root); // a moved or deleted module's old output must not stay importable
try {
  await writeCliManifest();
  await buildConsole();
} catch (err) {
  fs.rmSync(stampFile, { force: true });
  process.stderr.write(`build: ${err.message}\n`);
  process.exit(1);
}
fs.writeFileSync(stampFile, JSON.stringify({ builtAt, files }) + '\n');
