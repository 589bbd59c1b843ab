#!/usr/bin/env node
// Reads a V8 .cpuprofile (`node --cpu-prof`, e.g. the daemon under BENCH_PROXY_CPU_PROF) and prints
// where the time went as shares of the busy time: self time by area (the gateway's folders, each npm
// package, Node's internals, GC and system calls), by script and by function, and, with --inclusive,
// the time of each function with what it called. --from=<function> counts only the samples from the
// first one with that function on its stack (e.g. --from=relayJson: the calls, not the boot);
// --match=<regex> keeps the rows it matches; --callers=<function> prints the stacks that lead to it.
//
//   node scripts/cpuprofile-summary.mjs <file.cpuprofile> [--top=30] [--from=fn] [--match=re] [--inclusive] [--callers=fn]
import fs from 'node:fs';

const args = process.argv.slice(2);
const option = (name) =>
  args
    .find((a) => a.startsWith(`--${name}=`))
    ?.split('=')
    .slice(1)
    .join('=');
const file = args.find((a) => !a.startsWith('--'));
if (!file) {
  console.error('usage: cpuprofile-summary.mjs <file.cpuprofile> [--top=30] [--from=fn] [--match=re] [--inclusive] [--callers=fn]');
  process.exit(2);
}
const top = Number(option('top') ?? 30);
const match = option('match') ? new RegExp(option('match')) : null;
const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id);

const short = (url) =>
  url
    .replace(/^file:\/\//, '')
    .replace(/.*\/node_modules\//, 'npm:')
    .replace(/.*\/dist\//, 'dist/');
const frameName = (id) => {
  const f = nodes.get(id).callFrame;
  return `${f.functionName || '(anonymous)'} ${f.url ? short(f.url) : ''}:${f.lineNumber + 1}`;
};
function* stack(id) {
  for (let x = id; x !== undefined; x = parent.get(x)) yield x;
}
const from = option('from');
const first = from ? profile.samples.findIndex((id) => [...stack(id)].some((x) => nodes.get(x).callFrame.functionName === from)) : 0;
if (first < 0) throw new Error(`no sample has ${from} on its stack`);

function area(url, name) {
  if (!url) return `(${name})`;
  const s = short(url);
  if (s.startsWith('dist/')) return `gateway ${s.split('/').slice(1, 3).join('/')}`;
  if (s.startsWith('npm:')) return `npm ${s.slice(4).split('/')[0]}`;
  return s.startsWith('node:') ? 'node internals' : s;
}

const byArea = new Map();
const byUrl = new Map();
const byFunction = new Map();
const inclusive = new Map();
const callers = new Map();
const add = (map, key, t) => map.set(key, (map.get(key) ?? 0) + t);
let busy = 0;
let idle = 0;
for (let i = first; i < profile.samples.length; i++) {
  const id = profile.samples[i];
  const t = profile.timeDeltas[i + 1] ?? 0;
  const f = nodes.get(id).callFrame;
  if (f.functionName === '(idle)') {
    idle += t;
    continue;
  }
  busy += t;
  add(byArea, area(f.url, f.functionName), t);
  add(byUrl, f.url ? short(f.url) : `(${f.functionName})`, t);
  add(byFunction, frameName(id), t);
  if (args.includes('--inclusive')) for (const name of new Set([...stack(id)].map(frameName))) add(inclusive, name, t);
  if (f.functionName === option('callers')) add(callers, [...stack(parent.get(id))].slice(0, 8).map(frameName).join(' < '), t);
}

function print(title, map) {
  console.log(`--- ${title}`);
  const rows = [...map].filter(([k]) => !match || match.test(k)).sort((a, b) => b[1] - a[1]);
  for (const [key, t] of rows.slice(0, top))
    console.log(`${((t / busy) * 100).toFixed(2).padStart(6)} %  ${(t / 1000).toFixed(0).padStart(7)} ms  ${key}`);
}
console.log(
  `${file}: busy ${(busy / 1000).toFixed(0)} ms, idle ${(idle / 1000).toFixed(0)} ms, from sample ${first} of ${profile.samples.length}`,
);
print('self time by area', byArea);
print('self time by script', byUrl);
print('self time by function', byFunction);
if (inclusive.size > 0) print('time with callees, by function', inclusive);
if (callers.size > 0) print(`stacks leading to ${option('callers')}`, callers);
