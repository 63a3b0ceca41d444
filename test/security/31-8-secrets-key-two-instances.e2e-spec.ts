import { existsSync } from 'node:fs';
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { Client } from 'pg';
import { type AppProcess, startAppProcess } from '../helpers/app-process';

jest.setTimeout(240_000);

/**
 * Issue 31.8: without SECRETS_KEY every instance generates its own DATA_DIR/secrets.key, so a
 * second instance on the same PostgreSQL database could not start, and its error did not say why.
 * Real processes on one schema, each with its own DATA_DIR: the second one's error names the cause
 * and the remedy, and with the first one's key as SECRETS_KEY it starts.
 */
describe('security 31.8: two instances on one database without SECRETS_KEY', () => {
  const schema = `t_keys_${randomBytes(5).toString('hex')}`;
  const stamp = `${process.pid}-${Date.now()}`;
  const dirs = [
    `${os.tmpdir()}/devplane-test/keys-a-${stamp}`,
    `${os.tmpdir()}/devplane-test/keys-b-${stamp}`,
  ];
  const running: AppProcess[] = [];

  afterAll(async () => {
    for (const child of running) await child.kill('SIGKILL');
    const client = new Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it("the second instance's error says every instance needs the same SECRETS_KEY; with it, it starts", async () => {
    const first = await startAppProcess({ DATABASE_SCHEMA: schema, DATA_DIR: dirs[0]!, SECRETS_KEY: '' });
    running.push(first);

    const failure = await startAppProcess({
      DATABASE_SCHEMA: schema,
      DATA_DIR: dirs[1]!,
      SECRETS_KEY: '',
    }).then(
      (child) => {
        running.push(child);
        return 'started';
      },
      (error: Error) => error.message,
    );
    // Refused before it writes a key of its own (issue 51.7), naming the key it lacks.
    expect(failure).toContain(
      `Invalid configuration: SECRETS_KEY is unset and ${dirs[1]}/secrets.key does not exist, but this database holds secrets sealed with a key`,
    );
    expect(failure).toContain('Every instance on one database needs the same SECRETS_KEY');
    expect(existsSync(`${dirs[1]}/secrets.key`)).toBe(false);

    // The remedy the message gives: the first instance's key on the second one.
    const key = (await readFile(`${dirs[0]}/secrets.key`, 'utf8')).trim();
    const second = await startAppProcess({ DATABASE_SCHEMA: schema, DATA_DIR: dirs[1]!, SECRETS_KEY: key });
    running.push(second);
    expect((await fetch(`${second.url}/healthz`)).status).toBe(200);
  });
});
