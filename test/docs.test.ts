// The operator docs: README.md is a short front door, docs/*.md hold the rest, and every relative link
// between them lands on a file and, for #anchors, on a heading of that file (GitHub's slugs). Nothing
// points at a path outside the repository: the spec and the contract are named, not linked.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';

const root = fileURLToPath(new URL('../../', import.meta.url));
const README_MAX_LINES = 220;

/** README.md and every docs/*.md, repository-relative. */
function docFiles(): string[] {
  const docs = fs
    .readdirSync(path.join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs];
}

/** The text outside fenced code blocks, one entry per line (fenced lines become empty). */
function prose(text: string): string[] {
  let fence: string | null = null;
  return text.split('\n').map((line) => {
    const m = /^\s*(`{3,}|~{3,})/.exec(line);
    if (m) {
      if (fence === null) fence = m[1]![0]!;
      else if (m[1]![0] === fence) fence = null;
      return '';
    }
    return fence === null ? line : '';
  });
}

/** GitHub's heading anchor: lower-case, punctuation dropped, each space a hyphen. */
function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a markdown text's headings, duplicates numbered as GitHub does (-1, -2, ...). */
function anchors(text: string): Set<string> {
  const out = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of prose(text)) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = slug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Relative link targets of a markdown text (outside code blocks and code spans), with their line numbers. */
function relativeLinks(text: string): { line: number; target: string }[] {
  const out: { line: number; target: string }[] = [];
  prose(text).forEach((line, i) => {
    const bare = line.replace(/`[^`]*`/g, '');
    for (const m of bare.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      const target = m[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, ...
      out.push({ line: i + 1, target });
    }
  });
  return out;
}

/** Broken relative links of one markdown file (repository-relative `file`), as "file:line target: why". */
function brokenLinks(file: string, text: string, read: (rel: string) => string | null): string[] {
  const broken: string[] = [];
  for (const { line, target } of relativeLinks(text)) {
    const hash = target.indexOf('#');
    const filePart = hash === -1 ? target : target.slice(0, hash);
    const anchor = hash === -1 ? null : decodeURIComponent(target.slice(hash + 1));
    const rel = filePart === '' ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), decodeURIComponent(filePart)));
    const where = `${file}:${line} ${target}`;
    if (rel.startsWith('../')) {
      broken.push(`${where}: outside the repository`);
      continue;
    }
    const isDir = filePart.endsWith('/') || fs.statSync(path.join(root, rel), { throwIfNoEntry: false })?.isDirectory() === true;
    const content = isDir ? null : read(rel);
    if (!isDir && content === null) {
      broken.push(`${where}: no such file`);
      continue;
    }
    if (anchor !== null && anchor !== '') {
      if (content === null || !rel.endsWith('.md')) broken.push(`${where}: an anchor into something that is not a markdown file`);
      else if (!anchors(content).has(anchor)) broken.push(`${where}: no heading with that anchor`);
    }
  }
  return broken;
}

function readRepo(rel: string): string | null {
  try {
    const full = path.join(root, rel);
    return fs.statSync(full).isFile() ? fs.readFileSync(full, 'utf8') : null;
  } catch {
    return null;
  }
}

t.test('README.md is a short front door', async (t) => {
  const lines = fs.readFileSync(path.join(root, 'README.md'), 'utf8').replace(/\n$/, '').split('\n').length;
  t.ok(lines <= README_MAX_LINES, `README.md has ${lines} lines, at most ${README_MAX_LINES}`);
  t.ok(fs.readdirSync(path.join(root, 'docs')).filter((n) => n.endsWith('.md')).length >= 5, 'docs/ holds the topic pages');
});

t.test('every relative link in README.md and docs/*.md reaches a file and, for #anchors, a heading of it', async (t) => {
  const files = docFiles();
  let links = 0;
  const broken: string[] = [];
  for (const file of files) {
    const text = fs.readFileSync(path.join(root, file), 'utf8');
    links += relativeLinks(text).length;
    broken.push(...brokenLinks(file, text, readRepo));
  }
  t.ok(links >= 20, `the walk found the links (${links})`);
  t.same(broken, [], 'broken links');
  // Every docs page is reachable from the README.
  const readmeTargets = new Set(relativeLinks(fs.readFileSync(path.join(root, 'README.md'), 'utf8')).map((l) => l.target.split('#')[0]));
  t.same(
    files.filter((f) => f.startsWith('docs/') && !readmeTargets.has(f)),
    [],
    'docs pages the README does not link',
  );
});

t.test('no page points at a path outside the repository (../shared/)', async (t) => {
  for (const file of docFiles()) {
    const text = fs.readFileSync(path.join(root, file), 'utf8');
    const hits = text.split('\n').flatMap((line, i) => (line.includes('../shared/') ? [`${file}:${i + 1}`] : []));
    t.same(hits, [], `${file} names the spec, the contract and the datasets, not their paths`);
  }
});

t.test('the checker itself: slugs as GitHub makes them, and broken links are found', async (t) => {
  t.equal(slug("Degraded mode: the traces' dead-letter queue"), 'degraded-mode-the-traces-dead-letter-queue');
  t.equal(slug('Proofs: Merkle tree and signed checkpoints'), 'proofs-merkle-tree-and-signed-checkpoints');
  t.equal(slug('The approval flow, end to end'), 'the-approval-flow-end-to-end');
  t.equal(slug('Start-up, migrations, several daemons'), 'start-up-migrations-several-daemons');
  t.equal(slug('API so far'), 'api-so-far');
  const pages: Record<string, string> = {
    'docs/a.md': '# A\n\n## Same\n\n## Same\n\n```sh\n# not a heading\n```\n',
  };
  const read = (rel: string) => pages[rel] ?? null;
  const page = [
    '[ok](a.md) [ok](a.md#same) [ok](a.md#same-1) [ok](#b) [web](https://example.com/x)',
    '# B',
    '[bad](a.md#same-2) [bad](missing.md) [bad](a.md#not-a-heading) [bad](../../shared/spec/SPEC.md)',
    '`[in code](missing.md)`',
    '```',
    '[in a block](missing.md)',
    '```',
  ].join('\n');
  t.same(
    brokenLinks('docs/b.md', page, (rel) => (rel === 'docs/b.md' ? page : read(rel))),
    [
      'docs/b.md:3 a.md#same-2: no heading with that anchor',
      'docs/b.md:3 missing.md: no such file',
      'docs/b.md:3 a.md#not-a-heading: no heading with that anchor',
      'docs/b.md:3 ../../shared/spec/SPEC.md: outside the repository',
    ],
  );
});
