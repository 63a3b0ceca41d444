import cookieParser from 'cookie-parser';
import express from 'express';
import helmet from 'helmet';
import { createHash, timingSafeEqual } from 'node:crypto';
import { Pool } from 'pg';
import pino from 'pino';
import { pinoHttp } from 'pino-http';

/**
 * The framework floor the design card fixes: Express with helmet, cookie-parser and pino-http
 * (the same middleware devplane runs) doing bare-server.ts's token lookup and user select, with no
 * Nest, no guards, no cache. `npm run bench` loads it beside the bare node:http server, so each
 * figure shows what the stack costs (floor / bare) and what devplane adds (devplane / floor).
 * Env: DATABASE_URL, DATABASE_SCHEMA, DATABASE_POOL_SIZE, PORT, LOG_LEVEL.
 */
const pool = new Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.DATABASE_POOL_SIZE ?? 10),
  options: process.env.DATABASE_SCHEMA ? `-c search_path=${process.env.DATABASE_SCHEMA}` : undefined,
});

const app = express();
app.disable('x-powered-by');
app.set('trust proxy', 'loopback');
app.use(helmet({ contentSecurityPolicy: false, crossOriginEmbedderPolicy: false }));
app.use(cookieParser());
app.use(pinoHttp({ logger: pino({ level: process.env.LOG_LEVEL ?? 'warn' }) }));

app.get('/', (req, res) => {
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
        res.status(401).json({ message: 'token is required' });
        return;
      }
      res.json({
        id: Number(row.id),
        login: row.name,
        full_name: row.full_name,
        email: row.email,
        created: row.created_at,
        is_admin: row.is_admin,
      });
    })
    .catch(() => res.status(500).end());
});

const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`floor listening ${(server.address() as { port: number }).port}\n`);
});
process.on('SIGTERM', () => server.close(() => void pool.end().then(() => process.exit(0))));
