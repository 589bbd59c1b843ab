// A TCP relay on loopback in front of another address, whose connections can be frozen: bytes stop
// flowing both ways while every socket stays open (a half-open or stalled network path, with no
// close for either side to notice).
import net from 'node:net';

export interface TcpRelay {
  readonly port: number;
  /** Connections relayed so far. */
  readonly opened: number;
  /** Stops relaying on the connections open now; later connections are relayed normally. */
  freeze(): void;
  close(): Promise<void>;
}

export async function startTcpRelay(targetHost: string, targetPort: number): Promise<TcpRelay> {
  const live = new Set<{ client: net.Socket; upstream: net.Socket; frozen: boolean }>();
  let opened = 0;
  const server = net.createServer((client) => {
    opened += 1;
    const upstream = net.connect(targetPort, targetHost);
    const pair = { client, upstream, frozen: false };
    live.add(pair);
    client.on('data', (chunk) => {
      if (!pair.frozen) upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (!pair.frozen) client.write(chunk);
    });
    const end = () => {
      live.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    get opened() {
      return opened;
    },
    freeze() {
      for (const pair of live) pair.frozen = true;
    },
    async close() {
      for (const pair of live) {
        pair.client.destroy();
        pair.upstream.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
