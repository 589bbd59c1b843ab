// Raw HTTP/1.1 over a TCP socket, for requests fetch will not send (raw bytes, broken framing).
import net from 'node:net';

/** Sends raw bytes, returns everything the server wrote until it closed the connection. */
export function rawExchange(port: number, bytes: Buffer | string, deadlineMs = 10_000): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(), deadlineMs);
    socket.on('data', (d) => chunks.push(d));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('latin1'));
    });
    socket.on('error', () => undefined);
    socket.write(bytes);
  });
}

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  // biome-ignore lint/suspicious/noExplicitAny: the parsed answer, whatever it holds; tests read it by path
  body: any;
}

export function parseRaw(text: string): RawAnswer | null {
  const end = text.indexOf('\r\n\r\n');
  const m = /^HTTP\/1\.1 (\d{3}) /.exec(text);
  if (!m || end < 0) return null;
  const headers: Record<string, string> = {};
  for (const line of text.slice(0, end).split('\r\n').slice(1)) {
    const i = line.indexOf(':');
    headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
  }
  let body: unknown = null;
  try {
    body = JSON.parse(text.slice(end + 4));
  } catch {
    body = null;
  }
  return { status: Number(m[1]), headers, body };
}
