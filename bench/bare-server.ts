import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import { Pool } from 'pg';

/**
 * The baseline: the same token lookup and user select as devplane's token auth, served by bare
 * node:http + pg, no framework. Env: DATABASE_URL, DATABASE_SCHEMA, PORT.
 */
const pool = new Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.DATABASE_POOL_SIZE ?? 10),
  options: process.env.DATABASE_SCHEMA ? `-c search_path=${process.env.DATABASE_SCHEMA}` : undefined,
});

const server = createServer((req, res) => {
  const raw = (req.headers.authorization ?? '').replace(/^token\s+/i, '');
  const [id = '', secret = ''] = raw.split('-');
  pool
    .query(
      `SELECT t.hashed_secret, t.expires_at, u.id, u.uuid, u.name, u.full_name, u.email, u.created_at, u.is_admin
         FROM api_tokens t JOIN users u ON u.id = t.user_id WHERE t.id = $1`,
      [id],
    )
    .then(({ rows }) => {
      const row = rows[0] as
        | {
            hashed_secret: Buffer;
            expires_at: Date;
            id: string;
            name: string;
            full_name: string;
            email: string;
            created_at: Date;
            is_admin: boolean;
          }
        | undefined;
      const digest = createHash('sha256').update(secret).digest();
      if (!row || !timingSafeEqual(digest, row.hashed_secret) || row.expires_at.getTime() < Date.now()) {
        res.writeHead(401, { 'content-type': 'application/json' }).end('{"message":"token is required"}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: Number(row.id),
          login: row.name,
          full_name: row.full_name,
          email: row.email,
          created: row.created_at,
          is_admin: row.is_admin,
        }),
      );
    })
    .catch(() => res.writeHead(500).end());
});

server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`bare listening ${(server.address() as { port: number }).port}\n`);
});
process.on('SIGTERM', () => server.close(() => void pool.end().then(() => process.exit(0))));
