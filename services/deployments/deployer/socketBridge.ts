// A TCP listener whose every connection is piped to a Unix socket: the host's side of a sandboxed
// agent server (a loopback port for the gateway, the server's socket in its revision directory),
// and the sandbox's side of its egress proxy (HTTP_PROXY inside, the proxy's socket outside).
// A connection whose far end is not there yet (a server still starting) is closed at once.
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface SocketBridge {
  port: number;
  close(): Promise<void>;
}

/** Listens on `host:port` (0: a free port) and pipes each connection to the Unix socket at `socketPath`. */
export async function bridgeToSocket(socketPath: string, host: string, port = 0): Promise<SocketBridge> {
  const open = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(socketPath);
    for (const s of [client, upstream]) {
      open.add(s);
      s.once('close', () => open.delete(s));
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as { port: number }).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of open) s.destroy();
        server.close(() => resolve());
      }),
  };
}
