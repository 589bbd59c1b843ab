// gatewayctl registry search: the bundled MCP registry catalog of GET /api/v1/mcp/registry, one page
// at a time (keyset over the registry name) or, with --all, every page. Registry text comes from
// third parties, so it is escaped before it reaches the terminal.
import { Flags } from '@oclif/core';
import { REGISTRY_PAGE_MAX, registryQuery } from '../../../shared/mcp-catalog-schemas.js';
import { checkBody } from '../../agent-flags.js';
import { GatewayCommand } from '../../base-command.js';
import { table } from '../../format.js';
import { safeText } from '../../trace-output.js';

export interface RegistryItem {
  registry_name: string;
  version: string;
  description: string;
  remote_url: string | null;
  frontable: boolean;
  website_url: string | null;
  registry_status: string;
  registry_updated_at: string | null;
  published_at: string | null;
  repository_url: string | null;
}

export interface RegistryPage {
  items: RegistryItem[];
  next_cursor: string | null;
  total: number;
}

/** --all stops after this many pages even if the daemon kept answering with a cursor. */
const MAX_PAGES = 1000;

export default class RegistrySearch extends GatewayCommand {
  static override summary = 'Search the MCP registry catalog bundled with the gateway (by name and description).';
  static override examples = [
    '<%= config.bin %> registry search --q github --frontable',
    '<%= config.bin %> registry search --limit 20 --cursor com.example.maps/geocoding',
    '<%= config.bin %> registry search --all --json',
  ];

  static override flags = {
    q: Flags.string({ summary: 'Only entries whose name or description contains this text (any case).' }),
    frontable: Flags.boolean({ summary: 'Only entries the gateway can front (--no-frontable: only the others).', allowNo: true }),
    limit: Flags.integer({ summary: `Entries per page (1-${REGISTRY_PAGE_MAX}, default 50).` }),
    cursor: Flags.string({ summary: 'Start after this registry name (the next_cursor of the previous page).' }),
    all: Flags.boolean({ summary: 'Fetch every page from --cursor on.', default: false }),
  };

  async run(): Promise<RegistryPage> {
    const { flags } = await this.parse(RegistrySearch);
    const query = checkBody(registryQuery, {
      q: flags.q,
      frontable: flags.frontable === undefined ? undefined : String(flags.frontable),
      limit: flags.limit ?? (flags.all ? REGISTRY_PAGE_MAX : undefined),
      cursor: flags.cursor,
    });
    const api = await this.api();
    const fetchPage = (cursor: string | undefined): Promise<RegistryPage> => {
      const params = new URLSearchParams({ limit: String(query.limit) });
      if (query.q) params.set('q', query.q);
      if (query.frontable !== undefined) params.set('frontable', String(query.frontable));
      if (cursor !== undefined) params.set('cursor', cursor);
      return api.request<RegistryPage>('GET', `/api/v1/mcp/registry?${params}`);
    };
    let page = await fetchPage(query.cursor);
    if (flags.all) {
      const items = [...page.items];
      for (let n = 1; page.next_cursor !== null && n < MAX_PAGES; n += 1) {
        page = await fetchPage(page.next_cursor);
        items.push(...page.items);
      }
      page = { items, next_cursor: page.next_cursor, total: page.total };
    }
    this.show(page);
    return page;
  }

  private show(page: RegistryPage): void {
    if (page.items.length === 0) {
      this.log(page.total === 0 ? 'No registry entries match.' : `No more entries; ${page.total} match.`);
      return;
    }
    const cell = (v: string | null, max: number) => (v === null ? null : safeText(v, max));
    this.log(
      table(
        ['NAME', 'VERSION', 'FRONTABLE', 'REMOTE', 'DESCRIPTION'],
        page.items.map((i) => [
          cell(i.registry_name, 80),
          cell(i.version, 20),
          i.frontable ? 'yes' : 'no',
          cell(i.remote_url, 80),
          cell(i.description, 70),
        ]),
      ),
    );
    this.log(`${page.items.length} shown of ${page.total} matching.`);
    if (page.next_cursor !== null) this.notice(`More entries: --cursor ${safeText(page.next_cursor)}`);
  }
}
