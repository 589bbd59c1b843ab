// Loopback ports for tests: a server started on a port the system picks and closed when the test
// ends, and a port nobody listens on (for a child process to take, or to be refused on).
import type http from 'node:http';
import net from 'node:net';
import type { Test } from 'tap';

/** Starts `server` on 127.0.0.1 at a port the system picks; at the test's end its connections are cut and it closes. */
export async function listenOnLoopback(t: Test, server: http.Server | net.Server): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        if ('closeAllConnections' in server) server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return (server.address() as net.AddressInfo).port;
}

/** A loopback port nobody listens on right now: connecting there is refused until someone takes it. */
export async function freeLoopbackPort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', resolve);
  });
  const { port } = probe.address() as net.AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}
