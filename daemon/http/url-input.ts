// Path parameters and query values, checked once for every route before any handler runs, so that
// no text PostgreSQL cannot store (a NUL, a lone surrogate: shared/text.ts) and no id longer than
// any id can be ever reaches a query. A path id that cannot exist names nothing: 404 not_found, as
// for any unknown id (CONTRACT). A query value is input: 400 validation_error.
import { GatewayError } from '../../shared/errors.js';
import { isWellFormed } from '../../shared/text.js';

/** The longest path parameter: generated ids are far shorter, tool names (field roles) at most 200 characters. */
export const PATH_PARAM_MAX_CHARS = 200;

const storable = (text: string): boolean => !text.includes('\u0000') && isWellFormed(text);

export function checkUrlInput(params: Readonly<Record<string, string | undefined>>, query: URLSearchParams): void {
  for (const value of Object.values(params)) {
    if (value !== undefined && (value.length > PATH_PARAM_MAX_CHARS || !storable(value))) throw new GatewayError('not_found');
  }
  for (const [name, value] of query) {
    if (!storable(name) || !storable(value)) {
      const field = storable(name) ? name : '(name)';
      throw new GatewayError('validation_error', `Invalid request: query.${field}: must not hold a NUL character or a lone surrogate`);
    }
  }
}
