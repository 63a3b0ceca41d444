import net from 'node:net';

/** A TCP port free right now on 127.0.0.1 (for a PUBLIC_URL that must name the port a server will use). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
