// The console's pages and the one rule that picks which shows: the address's hash. `#/<name>` (and
// anything after a further `/`, the page's own part, such as a trace's id) selects a page; an
// empty hash, or a notification's `#approval=<id>` link, is the approvals inbox. A page is shown in
// `main` and returns the function that stops its timers when another page takes its place.
import type { Session } from './api.js';
import { showApprovals } from './approvals.js';
import { showCommandCenter } from './command-center.js';
import { showServers } from './servers.js';
import { showTrace } from './trace-page.js';
import { showTraces } from './traces.js';

export interface Page {
  /** The hash's first part: `#/<name>`. */
  readonly name: string;
  /** The navigation link's text and the page's heading. */
  readonly title: string;
  /** Shows the page; `rest` is what follows `#/<name>/`, decoded ('' when nothing does). */
  readonly show: (main: HTMLElement, session: Session, rest: string) => () => void;
}

/** In navigation order; the first is the default. */
export const PAGES: readonly Page[] = [
  { name: 'approvals', title: 'Approvals', show: (main, session) => showApprovals(main, session) },
  { name: 'servers', title: 'Servers', show: showServers },
  { name: 'traces', title: 'Traces', show: (main, _session, rest) => (rest === '' ? showTraces(main) : showTrace(main, rest)) },
  { name: 'center', title: 'Command center', show: (main, session) => showCommandCenter(main, session) },
];

export interface Route {
  readonly page: Page;
  readonly rest: string;
}

/** The page a hash selects, with its own part; unknown names fall back to the first page. */
export function routeOf(hash: string): Route {
  const fallback = { page: PAGES[0]!, rest: '' };
  const m = /^#\/([a-z-]+)(?:\/(.*))?$/.exec(hash);
  if (!m) return fallback;
  const page = PAGES.find((p) => p.name === m[1]);
  if (!page) return fallback;
  let rest = '';
  try {
    rest = decodeURIComponent(m[2] ?? '');
  } catch {
    return { page, rest: '' };
  }
  return { page, rest };
}

/** The hash that selects a page (and its own part). */
export function hashOf(name: string, rest = ''): string {
  return rest === '' ? `#/${name}` : `#/${name}/${encodeURIComponent(rest)}`;
}
