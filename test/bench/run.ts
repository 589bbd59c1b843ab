// `npm run bench`: every benchmark, each printing its figures next to a baseline measured in the
// same run. Uses DATABASE_URL's server, or an embedded PostgreSQL when it is unset.
import os from 'node:os';
import { databaseServer } from '../helpers/db-server.js';
import { benchCommandCenter } from './command-center.js';
import { benchContent } from './content.js';
import { benchDetectors } from './detectors.js';
import { benchExport } from './export.js';
import { benchProxy } from './proxy.js';
import { benchProxyContent } from './proxy-content.js';
import { benchProxyCost } from './proxy-cost.js';
import { benchProxyStdio } from './proxy-stdio.js';
import { benchTraceAppend } from './trace-append.js';
import { benchTraceList } from './trace-list.js';
import { benchVerify } from './verify.js';

async function main(): Promise<void> {
  const server = await databaseServer('bench');
  console.log(`node ${process.version}, ${os.cpus().length} cores, database ${server.embedded ? 'embedded' : 'DATABASE_URL'}`);
  try {
    const only = process.argv[2];
    if (!only || only === 'trace-append') await benchTraceAppend(server.url);
    if (!only || only === 'export') await benchExport(server.url);
    if (!only || only === 'detectors') benchDetectors();
    if (!only || only === 'content') benchContent();
    if (!only || only === 'verify') await benchVerify(server.url);
    if (only === 'trace-list') await benchTraceList(server.url); // only by name: it seeds 10M rows (BENCH_TRACES)
    if (only === 'proxy') await benchProxy(server.url); // only by name: it needs nginx and runs 4 - 6 minutes
    if (only === 'proxy' || only === 'proxy-stdio') await benchProxyStdio(server.url); // its stdio line; alone by its own name
    if (only === 'proxy-cost') await benchProxyCost(server.url); // only by name: the daemon's user and system CPU per call
    if (only === 'proxy-content') await benchProxyContent(server.url); // only by name: two daemons' worth of calls, about two minutes
    if (only === 'command-center') await benchCommandCenter(server.url); // only by name: counters of 10M traces (BENCH_CC_TRACES)
  } finally {
    await server.stop();
  }
}

void main();
