// The Servers page: every MCP server of the project with its status (GET /api/v1/mcp/servers), and
// at `#/servers/<id>` one server with its tools (GET /api/v1/mcp/servers/{id}/tools), those waiting
// for admission first. An Admin admits or rejects a tool there, and approves (server-approve.ts)
// or rejects a server awaiting approval after confirming, through the routes `gatewayctl servers
// release|verdict|approve|reject` use; a Viewer sees the same page without controls (the API
// would refuse anyway).
import { ApiError, request, type Session } from './api.js';
import { fill, h } from './dom.js';
import { type ApproveContext, approveServer } from './server-approve.js';
import { type Tool, type ToolActions, toolCard, waiting } from './server-tools.js';
import { messageOf } from './sign-in.js';

interface Server {
  id: string;
  name: string;
  server_url: string;
  transport?: string;
  status: string;
  scan_state: string;
  tool_count: number;
  tools_unreleased: number;
  last_scan_at: string | null;
}

/** The page's own address (pages.ts hashOf's form, not imported: pages.ts imports this page). */
const pageHash = (id = '') => (id === '' ? '#/servers' : `#/servers/${encodeURIComponent(id)}`);
const route = (id: string, action = '') => `/api/v1/mcp/servers/${encodeURIComponent(id)}${action ? `/${action}` : ''}`;
const isAdmin = (session: Session) => session.credential.role === 'admin';

/** Shows the list, or one server when `rest` names it; no timers to stop. */
export function showServers(main: HTMLElement, session: Session, rest: string): () => void {
  const state = { stopped: false };
  if (rest === '') void showList(main, state);
  else void showServer(main, session, rest, state);
  return () => {
    state.stopped = true;
  };
}

async function showList(main: HTMLElement, state: { stopped: boolean }): Promise<void> {
  const summary = h('p', { class: 'summary', attrs: { role: 'status' } }, 'Loading servers…');
  const list = h('ul', { class: 'servers' });
  fill(main, h('h1', {}, 'Servers'), summary, list);
  try {
    const { servers } = await request<{ servers: Server[] }>('GET', '/api/v1/mcp/servers');
    if (state.stopped) return;
    summary.textContent =
      servers.length === 0 ? 'No MCP servers are registered.' : `${servers.length} server${servers.length === 1 ? '' : 's'}.`;
    for (const s of servers)
      list.append(
        h(
          'li',
          { class: 'card server', attrs: { 'data-server-id': s.id } },
          h('a', { attrs: { href: pageHash(s.id) } }, s.name),
          h('span', { class: `badge status-${s.status.toLowerCase()}` }, s.status),
          h(
            'p',
            { class: 'note' },
            `${s.tool_count} tool${s.tool_count === 1 ? '' : 's'}, ${s.tools_unreleased} never admitted · scan ${s.scan_state}`,
          ),
        ),
      );
  } catch (err) {
    if (!state.stopped) summary.textContent = `Could not read the servers: ${messageOf(err)}`;
  }
}

async function showServer(main: HTMLElement, session: Session, id: string, state: { stopped: boolean }): Promise<void> {
  const heading = h('h1', {}, 'Server');
  const said = h('p', { class: 'summary', attrs: { role: 'status', 'aria-live': 'polite' } }, 'Loading…');
  const body = h('div');
  fill(main, h('p', {}, h('a', { attrs: { href: pageHash() } }, 'All servers')), heading, said, body);

  const say = (text: string) => {
    said.textContent = text;
  };
  const reload = async (message?: string) => {
    try {
      const [server, { tools }] = await Promise.all([
        request<Server>('GET', route(id)),
        request<{ tools: Tool[] }>('GET', route(id, 'tools')),
      ]);
      if (state.stopped) return;
      heading.textContent = server.name;
      fill(body, ...render(server, tools, session, actions, () => void reload(), { say, act: (p, w) => void act(p, w) }));
      say(message ?? summaryOf(tools));
    } catch (err) {
      if (state.stopped) return;
      if (err instanceof ApiError && err.code === 'not_found') {
        heading.textContent = 'Server';
        fill(body);
      }
      say(message ? `${message} ${messageOf(err)}` : `Could not read the server: ${messageOf(err)}`);
    }
  };
  const act = async (pending: string, work: () => Promise<string>) => {
    say(pending);
    const message = await work().catch((err: unknown) =>
      err instanceof ApiError && err.code === 'mcp_release_surface_changed'
        ? `Not admitted: the tool's definition changed again since this page read it (${err.message}) The page now shows the new definition.`
        : `Refused: ${messageOf(err)}`,
    );
    await reload(message);
  };
  const actions: ToolActions = {
    admit: (tool, rule) =>
      void act(`Admitting ${tool.name}…`, async () => {
        const body = { tools: [{ tool_id: tool.id, rule, fingerprint: tool.current_fingerprint }] };
        await request('POST', route(id, 'tools/release'), body);
        return `Admitted ${tool.name} with the rule ${rule}.`;
      }),
    reject: (tool) =>
      void act(`Rejecting ${tool.name}…`, async () => {
        await request('POST', route(id, `tools/${encodeURIComponent(tool.id)}/verdict`), {
          action: 'DENY',
          reason: 'rejected in the console',
        });
        return `Rejected ${tool.name}: its rule is now DENY and it stays unadmitted.`;
      }),
  };
  await reload();
}

function summaryOf(tools: readonly Tool[]): string {
  const n = tools.filter(waiting).length;
  return n === 0 ? 'No tool is waiting for admission.' : `${n} tool${n === 1 ? '' : 's'} waiting for admission.`;
}

function render(
  server: Server,
  tools: readonly Tool[],
  session: Session,
  actions: ToolActions,
  reload: () => void,
  page: ApproveContext,
): (Node | string)[] {
  const admin = isAdmin(session);
  const active = server.status === 'ACTIVE';
  const note = !admin
    ? `Admitting needs an Admin; this session acts as a ${session.credential.role ?? 'no-role'} ${session.credential.kind.replace('_', ' ')}.`
    : active
      ? null
      : `The server is ${server.status}: tools are admitted with the server's approval (${server.status === 'PENDING_APPROVAL' ? 'Approve server… above' : 'gatewayctl servers approve'}).`;
  const toolActions = admin && active ? actions : null;
  const pending = tools.filter(waiting);
  const rest = tools.filter((t) => !waiting(t));
  return [
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'Status'),
      h('dd', {}, server.status),
      h('dt', {}, 'Address'),
      h('dd', { class: 'id' }, server.server_url),
      h('dt', {}, 'Last scan'),
      h('dd', {}, `${server.scan_state}${server.last_scan_at ? ` (${server.last_scan_at})` : ''}`),
      h('dt', {}, 'Server id'),
      h('dd', { class: 'id' }, server.id),
    ),
    h('div', { class: 'buttons' }, h('button', { attrs: { type: 'button' }, on: { click: reload } }, 'Reload')),
    admin && server.status === 'PENDING_APPROVAL' ? approveServer(server, tools, page) : '',
    admin && server.status === 'PENDING_APPROVAL' ? rejectServer(server, page.say) : '',
    h('h2', {}, `Waiting for admission (${pending.length})`),
    pending.length === 0 ? h('p', {}, 'None.') : h('div', { class: 'list' }, ...pending.map((t) => toolCard(t, toolActions, note))),
    h('h2', {}, `Tools (${rest.length})`),
    rest.length === 0 ? h('p', {}, 'None.') : h('div', { class: 'list' }, ...rest.map((t) => toolCard(t, null, null))),
  ];
}

/** "Reject server…" asks first; confirming removes the server with its tools (POST .../reject). */
function rejectServer(server: Server, say: (text: string) => void): HTMLElement {
  const box = h('div', { class: 'decide' });
  const ask = () => {
    const confirm = h(
      'button',
      {
        class: 'deny',
        attrs: { type: 'button' },
        on: {
          click: () => {
            say(`Rejecting ${server.name}…`);
            request('POST', route(server.id, 'reject')).then(
              () => {
                fill(box);
                say(`Rejected ${server.name}: it was removed with its tools.`);
                window.location.hash = pageHash();
              },
              (err: unknown) => say(`Refused: ${messageOf(err)}`),
            );
          },
        },
      },
      'Yes, reject and remove it',
    );
    fill(
      box,
      h('p', { attrs: { role: 'alert' } }, `Reject ${server.name}? It is removed with its tools; registering it again starts over.`),
      h('div', { class: 'buttons' }, confirm, h('button', { attrs: { type: 'button' }, on: { click: start } }, 'Cancel')),
    );
    confirm.focus();
  };
  const start = () => fill(box, h('button', { class: 'deny', attrs: { type: 'button' }, on: { click: ask } }, 'Reject server…'));
  start();
  return box;
}
