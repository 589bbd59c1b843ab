// Stage 2: only an ACTIVE server takes traffic. PENDING_APPROVAL -> -32002, BLOCKED -> -32001.
import { pass, refuse, type Stage } from './types.js';

export const serverStage: Stage = {
  name: 'server',
  run(ctx) {
    if (ctx.server.status === 'ACTIVE') return pass();
    return refuse(ctx.server.status === 'BLOCKED' ? 'SERVER_BLOCKED' : 'SERVER_PENDING_APPROVAL', { server_id: ctx.server.id });
  },
};
