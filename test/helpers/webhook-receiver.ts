import http, { type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local webhook peer (the crash tests' receiver): answers 200 to every JSON POST and records what
 * `record` takes from each body and request.
 */
export async function startWebhookReceiver<T>(record: (body: unknown, req: IncomingMessage) => T) {
  const hits: T[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      hits.push(record(JSON.parse(body) as unknown, req));
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
