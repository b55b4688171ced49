// A TCP proxy in front of the test PostgreSQL server, to make the store unreachable for a while
// without touching the server: `cut()` resets every connection through it and resets each new one
// as it arrives (what a host sees while its database restarts or the network is down), `restore()`
// lets connections through again. It listens on port 0 and says which port it got.
import { createConnection, createServer, type Socket } from 'node:net';

export interface OutageProxy {
  /** `url` with its host and port replaced by the proxy's. */
  readonly url: string;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startOutageProxy(url: string): Promise<OutageProxy> {
  const target = new URL(url);
  const sockets = new Set<Socket>();
  let down = false;
  const server = createServer((client) => {
    if (down) {
      client.resetAndDestroy();
      return;
    }
    const upstream = createConnection({ host: target.hostname, port: Number(target.port) });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {});
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('the outage proxy has no port');
  const proxied = new URL(url);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(address.port);
  const cutAll = () => {
    for (const socket of sockets) socket.resetAndDestroy();
  };
  return {
    url: proxied.toString(),
    cut() {
      down = true;
      cutAll();
    },
    restore() {
      down = false;
    },
    close: () =>
      new Promise((resolve) => {
        cutAll();
        server.close(() => resolve());
      }),
  };
}
