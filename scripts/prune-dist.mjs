#!/usr/bin/env node
// Removes compiled files in dist/ whose TypeScript source is gone (moved or deleted), so a deleted
// test cannot run from a stale build and a moved module cannot be imported from its old place.
// Only orphans go: the outputs of sources still there are kept, because the build is incremental
// (dist/.tsbuildinfo) and tsc would not emit again a file it believes it already wrote.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const OUTPUTS = ['.js', '.js.map', '.d.ts', '.d.ts.map'];

/** Top-level directories the tsconfig's include names ("daemon/**\/*.ts" -> daemon). */
function sourceDirs(root) {
  const { include } = JSON.parse(fs.readFileSync(path.join(root, 'tsconfig.json'), 'utf8'));
  return [...new Set(include.map((pattern) => pattern.split('/')[0]))];
}

/** The source a compiled file came from (dist/a/b.js.map -> a/b.ts), or null for a file tsc does not write. */
function sourceOf(root, file) {
  const ext = OUTPUTS.find((e) => file.endsWith(e));
  if (ext === undefined) return null;
  return path.join(root, path.relative(path.join(root, 'dist'), file).slice(0, -ext.length) + '.ts');
}

/** Deletes the orphans (and the folders they leave empty); returns their paths relative to root. */
export function pruneDist(root) {
  const removed = [];
  /** Returns whether it removed anything under dir. */
  const walk = (dir) => {
    let entries;
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch (err) {
      if (err.code === 'ENOENT') return false;
      throw err;
    }
    let any = false;
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!walk(full)) continue;
        any = true;
        // Only a folder this prune emptied: an empty one may be a build's, about to be written.
        try {
          fs.rmdirSync(full);
        } catch (err) {
          if (err.code !== 'ENOTEMPTY' && err.code !== 'EEXIST' && err.code !== 'ENOENT') throw err;
        }
        continue;
      }
      const source = sourceOf(root, full);
      if (source === null || fs.existsSync(source)) continue;
      fs.rmSync(full, { force: true });
      removed.push(path.relative(root, full));
      any = true;
    }
    return any;
  };
  for (const dir of sourceDirs(root)) walk(path.join(root, 'dist', dir));
  return removed.sort();
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const removed = pruneDist(root);
  if (removed.length > 0) process.stderr.write(`prune: removed ${removed.length} compiled files whose source is gone\n`);
}
