// A changed tool's admitted and current definitions side by side, field by field, from the pure
// diff (definition-diff.ts): removed lines in <del> on the left, added ones in <ins> on the right,
// each also prefixed "-" or "+" so the change does not rest on colour alone. Text only: control
// characters shown as \u escapes (show-value.ts), nothing parsed.
import { type Definition, definitionDiff, type FieldDiff, type Line } from './definition-diff.js';
import { h } from './dom.js';
import { displayText } from './show-value.js';

/** A block long enough that it may scroll gets a tab stop, so the keyboard can scroll it. */
const SCROLL_LINES = 15;
const SCROLL_CHARS = 1500;

export const FIELD_LABELS: Record<FieldDiff['field'], string> = {
  title: 'Title',
  description: 'Description',
  input_schema: 'Input schema',
  output_schema: 'Output schema',
  annotations: 'Annotations',
};

function side(lines: readonly Line[], mark: '-' | '+', label: string): HTMLElement {
  const pre = h('pre', { class: 'value diff', attrs: { 'aria-label': label } });
  if (lines.length === 0) pre.append(h('span', { class: 'none' }, '(none)'));
  let chars = 0;
  for (const line of lines) {
    const text = displayText(line.text);
    chars += text.length;
    pre.append(line.changed ? h(mark === '-' ? 'del' : 'ins', {}, `${mark} ${text}`) : h('span', {}, `  ${text}`));
  }
  if (lines.length > SCROLL_LINES || chars > SCROLL_CHARS) pre.tabIndex = 0;
  return pre;
}

/** The current definition alone (a tool never admitted). */
export function currentDefinitionView(toolName: string, current: Definition): HTMLElement {
  return h('div', { class: 'definition' }, ...definitionDiff(current, current).map((f) => field(toolName, f, false)));
}

/** The side-by-side comparison; `admitted` null says the old definition was not recorded. */
export function definitionView(toolName: string, admitted: Definition | null, current: Definition): HTMLElement {
  if (admitted === null)
    return h(
      'div',
      {},
      h(
        'p',
        { class: 'note' },
        'The admitted definition was not recorded (this tool was admitted before the gateway kept it): only the current one is shown.',
      ),
      currentDefinitionView(toolName, current),
    );
  const fields = definitionDiff(admitted, current);
  const unrecorded = fields.filter((f) => f.unrecorded).map((f) => FIELD_LABELS[f.field].toLowerCase());
  const unseen =
    !fields.some((f) => f.changed)
    && h(
      'p',
      { class: 'note' },
      unrecorded.length > 0
        ? `The fields compared are unchanged: the change is in what was not recorded when this tool was admitted (${unrecorded.join(', ')}).`
        : 'The fields shown are unchanged: the change is in one the gateway has not read yet; scan the server again to see it.',
    );
  return h('div', { class: 'definition' }, unseen, ...fields.map((f) => field(toolName, f, true)));
}

function field(toolName: string, f: FieldDiff, compare: boolean): HTMLElement {
  const label = FIELD_LABELS[f.field];
  if (compare && f.unrecorded)
    return h(
      'section',
      { class: 'field', attrs: { 'data-field': f.field } },
      h('h4', {}, `${label}: not recorded at admission`),
      h('div', { class: 'sides' }, h('div', {}, h('p', { class: 'side' }, 'Current'), side(f.after, '+', `${toolName} ${label}, current`))),
    );
  if (!compare)
    return h(
      'section',
      { class: 'field', attrs: { 'data-field': f.field } },
      h('h4', {}, label),
      side(f.after, '+', `${toolName} ${label}`),
    );
  return h(
    'section',
    { class: `field${f.changed ? ' changed' : ''}`, attrs: { 'data-field': f.field } },
    h('h4', {}, `${label}: ${f.changed ? 'changed' : 'unchanged'}`),
    h(
      'div',
      { class: 'sides' },
      h('div', {}, h('p', { class: 'side' }, 'Admitted'), side(f.before, '-', `${toolName} ${label}, admitted`)),
      h('div', {}, h('p', { class: 'side' }, 'Current'), side(f.after, '+', `${toolName} ${label}, current`)),
    ),
  );
}
