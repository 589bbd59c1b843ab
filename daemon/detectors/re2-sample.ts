// A string that an RE2 pattern matches, built from the pattern's source: RE2 compiles a pattern's
// reverse program and first DFA states on its first match, so the secret rules are warmed up on one.

/**
 * A string that a rule's pattern matches, or nearly: each group's first alternative, each repeat's
 * least count, each class's first member (a character outside a negated class). For warming RE2 up.
 */
export function sampleOf(source: string): string {
  let i = 0;
  const alternatives = (): string => {
    const first = sequence();
    while (source[i] === '|') {
      i++;
      sequence();
    }
    return first;
  };
  const sequence = (): string => {
    let out = '';
    while (i < source.length && source[i] !== '|' && source[i] !== ')') out += repeated(atom());
    return out;
  };
  const repeated = (unit: string): string => {
    const q = /^(?:[*?]|\+|\{(\d+)(?:,\d*)?\})\??/.exec(source.slice(i));
    if (q === null) return unit;
    i += q[0].length;
    return unit.repeat(q[0][0] === '+' ? 1 : Number(q[1] ?? 0));
  };
  const atom = (): string => {
    const c = source[i++]!;
    if (c === '(') return group();
    if (c === '[') return charClass();
    if (c === '\\') return escaped(source[i++] ?? '');
    return c === '^' || c === '$' ? '' : c === '.' ? 'a' : c;
  };
  const group = (): string => {
    if (source[i] === '?') {
      const head = /^\?(?:P?<\w+>|[imsU-]*:|[imsU-]*\))/.exec(source.slice(i))?.[0] ?? '?';
      i += head.length;
      if (head.endsWith(')')) return '';
    }
    const inner = alternatives();
    i++;
    return inner;
  };
  const charClass = (): string => {
    const end = /^\^?\]?(?:\\.|[^\]])*\]/s.exec(source.slice(i - 1))?.[0] ?? '[a]';
    i += end.length - 1;
    try {
      const re = new RegExp(end.replace(/\\z/g, ''), 'u');
      return ['a', '0', 'A', '_', ' ', '.', '#'].find((ch) => re.test(ch)) ?? 'a';
    } catch {
      return 'a';
    }
  };
  const escaped = (e: string): string => {
    if ('bBAz'.includes(e)) return '';
    const known: Record<string, string> = { d: '0', w: 'a', s: ' ', D: 'a', W: ' ', S: 'a', n: '\n', r: '\r', t: '\t' };
    if (known[e] !== undefined) return known[e]!;
    if (e === 'x') {
      const hex = /^(?:\{([0-9a-fA-F]+)\}|([0-9a-fA-F]{2}))/.exec(source.slice(i));
      i += hex?.[0].length ?? 0;
      return String.fromCodePoint(parseInt(hex?.[1] ?? hex?.[2] ?? '61', 16));
    }
    if (e === 'p' || e === 'P') {
      i += source[i] === '{' ? source.indexOf('}', i) - i + 1 : 1;
      return 'a';
    }
    return e;
  };
  return alternatives();
}
