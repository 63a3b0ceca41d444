import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');

/** The app the startup script starts inside the workspace: HTTP that describes each request, a WebSocket echo. */
export const APP_SERVER = `
const http = require('http');
const { WebSocketServer } = require('ws');
const port = Number(process.argv[2]);
const chunk = Buffer.alloc(65536, 120);
const server = http.createServer((req, res) => {
  if (req.url.startsWith('/healthz')) return res.end('ok');
  if (req.url.startsWith('/big')) {
    let left = Number(new URL(req.url, 'http://x').searchParams.get('n'));
    res.writeHead(200, { 'content-length': left, 'content-type': 'application/octet-stream' });
    const write = () => {
      while (left > 0) {
        const part = left >= chunk.length ? chunk : chunk.subarray(0, left);
        left -= part.length;
        if (!res.write(part)) return res.once('drain', write);
      }
      res.end();
    };
    return write();
  }
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    res.setHeader('set-cookie', ['coder_session_token=stolen; Path=/', 'app_cookie=1; Path=/']);
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({
      url: req.url, method: req.method, body, cookie: req.headers.cookie ?? null,
      session_header: req.headers['coder-session-token'] ?? req.headers['service-session-token'] ?? null,
      authorization: req.headers.authorization ?? null,
    }));
  });
});
new WebSocketServer({ server }).on('connection', (s) => s.on('message', (d, binary) => s.send(d, { binary })));
server.listen(port, '127.0.0.1', () => require('fs').writeFileSync('app-' + port + '.up', ''));
`;

/** A template definition whose startup script starts APP_SERVER on `port`, with apps at every sharing level. */
export function appDefinition(port: number, maxShare?: string): Record<string, unknown> {
  const base = `http://127.0.0.1:${port}`;
  return {
    directory: 'proj',
    files: { 'proj/server.js': APP_SERVER },
    env: { NODE_PATH: path.join(ROOT, 'node_modules') },
    ...(maxShare ? { max_share_level: maxShare } : {}),
    apps: [
      {
        slug: 'web',
        url: `${base}/base`,
        healthcheck: { url: `${base}/healthz`, interval: 1, threshold: 1 },
      },
      { slug: 'pub', url: base, share: 'public' },
      { slug: 'authn', url: base, share: 'authenticated' },
      { slug: 'org', url: base, share: 'organization' },
      {
        slug: 'down',
        url: 'http://127.0.0.1:1/',
        healthcheck: { url: 'http://127.0.0.1:1/', interval: 1, threshold: 1 },
      },
    ],
    startup_script:
      `nohup node server.js ${port} > server.log 2>&1 & ` +
      `for i in $(seq 100); do [ -f app-${port}.up ] && break; sleep 0.1; done`,
  };
}
