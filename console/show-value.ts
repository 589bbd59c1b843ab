// A held call's argument value as text a person can read and nothing can run: control characters
// (terminal escapes among them) shown as \u escapes, other values as JSON, and a long value folded
// behind a button that shows it all (filled only when asked, so a 1 MB value costs nothing unopened).
import { h } from './dom.js';

export const FOLD_CHARS = 400;
const FOLD_LINES = 8;

/** The value as display text: a string as it is, control characters but newline and tab escaped. */
export function displayText(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value, null, 2) ?? String(value));
  return text.replace(
    /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

function folded(text: string): string | null {
  if (text.length > FOLD_CHARS) return `${text.slice(0, FOLD_CHARS)}…`;
  const lines = text.split('\n');
  return lines.length > FOLD_LINES ? `${lines.slice(0, FOLD_LINES).join('\n')}\n…` : null;
}

/** A <pre> with the value as text, folded when long, with its show-all button. */
export function valueBlock(value: unknown, id: string): HTMLElement {
  const text = displayText(value);
  const short = folded(text);
  const pre = h('pre', { class: 'value', attrs: { id } }, short ?? text);
  if (short === null) return pre;
  pre.tabIndex = 0; // unfolded it may scroll: the keyboard must reach it
  const toggle = h('button', { class: 'link', attrs: { type: 'button', 'aria-expanded': 'false', 'aria-controls': id } });
  const label = (open: boolean) => (open ? 'Fold' : `Show all (${text.length.toLocaleString('en')} characters)`);
  toggle.textContent = label(false);
  toggle.addEventListener('click', () => {
    const open = toggle.getAttribute('aria-expanded') !== 'true';
    pre.textContent = open ? text : short;
    toggle.setAttribute('aria-expanded', String(open));
    toggle.textContent = label(open);
  });
  return h('div', { class: 'folded' }, pre, toggle);
}
