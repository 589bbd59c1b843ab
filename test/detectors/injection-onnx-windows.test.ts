import t from 'tap';
import { MAX_TEXT_CHARS, MAX_WINDOWS, textWindows, windowsOf, type WindowLayout } from '../../daemon/detectors/injection-onnx-windows.js';

const layout: WindowLayout = { prefix: [101], suffix: [102], padId: 0, maxTokens: 18 };
const ids = (n: number) => Array.from({ length: n }, (_, i) => 1000 + i);

t.test('each window is the special tokens around at most maxTokens - 2 ids, overlapping the next by an eighth', async (t) => {
  const windows = windowsOf(ids(40), layout);
  for (const w of windows) {
    t.ok(w.length <= 18);
    t.equal(w[0], 101);
    t.equal(w[w.length - 1], 102);
  }
  // 16 ids a window, 2 shared with the next: starts 0, 14, 28.
  t.same(
    windows.map((w) => w[1]),
    [1000, 1014, 1028],
  );
  const covered = new Set(windows.flatMap((w) => w.slice(1, -1)));
  t.equal(covered.size, 40, 'every id is in a window');
});

t.test('an empty or short text is one window', async (t) => {
  t.same(windowsOf([], layout), [[101, 102]]);
  t.same(windowsOf(ids(16), layout), [[101, ...ids(16), 102]]);
  t.equal(windowsOf(ids(17), layout).length, 2);
});

t.test('past MAX_WINDOWS the first windows and the last one are scored', async (t) => {
  const many = ids(14 * 200);
  const windows = windowsOf(many, layout);
  t.equal(windows.length, MAX_WINDOWS);
  t.equal(windows[0]![1], 1000);
  t.equal(windows[MAX_WINDOWS - 2]![1], 1000 + 14 * (MAX_WINDOWS - 2));
  t.equal(windows[MAX_WINDOWS - 1]![windows[MAX_WINDOWS - 1]!.length - 2], many[many.length - 1], 'the last id is in the last window');
});

t.test('a text past MAX_TEXT_CHARS is tokenized only as far as the windows read: its head and its end', async (t) => {
  const encoded: number[] = [];
  // One id per character: 'a' is 1, the final 'z' is 26.
  const encode = (s: string) => {
    encoded.push(s.length);
    return Array.from(s, (c) => c.charCodeAt(0) - 96);
  };
  const text = `${'a'.repeat(MAX_TEXT_CHARS * 4)}z`;
  const windows = textWindows(text, encode, layout);
  t.ok(
    encoded.every((n) => n < MAX_TEXT_CHARS),
    `tokenized ${encoded.join(' + ')} characters`,
  );
  t.equal(windows.length, MAX_WINDOWS);
  const last = windows[MAX_WINDOWS - 1]!;
  t.equal(last[last.length - 2], 26, "the text's last character is in the last window");
  t.same(textWindows('abc', encode, layout), [[101, 1, 2, 3, 102]], 'a short text in full');
});
