// Path parameters and query values, checked once for every route before any handler runs, so that
// no text PostgreSQL cannot store (a NUL, a lone surrogate: shared/text.ts) and no id longer than
// any id can be ever reaches a query. A path id that cannot exist names nothing: 404 not_found, as
// for any unknown id (CONTRACT). A query value is input: 400 validation_error, and so is a query
// whose percent-escapes are not UTF-8 (URLSearchParams would silently read them as U+FFFD).
import { GatewayError } from '../../shared/errors.js';
import { isWellFormed } from '../../shared/text.js';
import { fieldOf } from './validate.js';

/** The longest path parameter: generated ids are far shorter, tool names (field roles) at most 200 characters. */
export const PATH_PARAM_MAX_CHARS = 200;

const storable = (text: string): boolean => !text.includes('\u0000') && isWellFormed(text);
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Whether the bytes the query's percent-escapes (and any raw bytes) stand for are UTF-8. */
function decodesAsUtf8(rawQuery: string): boolean {
  if (!/[%\u0080-\u00ff]/.test(rawQuery)) return true;
  const bytes = rawQuery.replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  try {
    utf8.decode(Buffer.from(bytes, 'latin1'));
    return true;
  } catch {
    return false;
  }
}

export function checkUrlInput(params: Readonly<Record<string, string | undefined>>, query: URLSearchParams, rawQuery = ''): void {
  for (const value of Object.values(params)) {
    if (value !== undefined && (value.length > PATH_PARAM_MAX_CHARS || !storable(value))) throw new GatewayError('not_found');
  }
  if (!decodesAsUtf8(rawQuery)) throw new GatewayError('validation_error', 'Invalid request: query: its percent-escapes are not UTF-8');
  for (const [name, value] of query) {
    if (!storable(name) || !storable(value)) {
      const field = storable(name) ? fieldOf([name], 'query') : 'query.(name)';
      throw new GatewayError('validation_error', `Invalid request: ${field}: must not hold a NUL character or a lone surrogate`);
    }
  }
}
