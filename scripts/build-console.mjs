#!/usr/bin/env node
// Builds the web console (console/) into dist/console/: type-checks it against the DOM library
// (console/tsconfig.json), bundles console/main.ts into one ES module with esbuild (no source from
// outside the repository, nothing loaded at run time), and copies index.html and console.css.
// The daemon serves exactly these three files (daemon/http/console-files.ts).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const src = path.join(root, 'console');
const out = path.join(root, 'dist', 'console');

/** Type-checks, bundles and copies; throws on any failure. */
export async function buildConsole() {
  const tsc = spawnSync(
    process.execPath,
    [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', path.join(src, 'tsconfig.json')],
    {
      cwd: root,
      stdio: 'inherit',
    },
  );
  if (tsc.status !== 0) throw new Error('console: type errors');
  fs.mkdirSync(out, { recursive: true });
  await build({
    entryPoints: [path.join(src, 'main.ts')],
    outfile: path.join(out, 'console.js'),
    bundle: true,
    format: 'esm',
    target: 'es2022',
    platform: 'browser',
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  for (const name of ['index.html', 'console.css']) fs.copyFileSync(path.join(src, name), path.join(out, name));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  buildConsole().catch((err) => {
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  });
}
