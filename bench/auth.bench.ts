import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { CompiledSubject, type RbacObject } from '../src/modules/auth/rbac/rbac-evaluator';
import { PasswordHasher } from '../src/modules/identity/password-hasher.service';
import { createTestApp } from '../test/helpers/test-app';

/**
 * Issue 4 item 10: POST /api/v2/authcheck with 50 checks (requests/s, p99) and POST
 * /api/v2/users/login (requests/s), in-process app on loopback, rate limits off.
 * Env: DATABASE_URL (default: embedded PGlite), BENCH_SECONDS (default 10), BENCH_CONNECTIONS (default 10).
 * Run: node -r @swc-node/register bench/auth.bench.ts
 */
interface LoadOptions {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  connections?: number;
  duration?: number;
}
interface LoadResult {
  requests: { average: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
}
// autocannon ships no type declarations.
const autocannon = createRequire(__filename)('autocannon') as (options: LoadOptions) => Promise<LoadResult>;

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);

interface Figures {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

async function load(name: string, options: LoadOptions): Promise<Figures> {
  const result = await autocannon({ connections, duration: seconds, ...options });
  return {
    name,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

async function main(): Promise<void> {
  // The login throttler's own skipIf overrides RATE_LIMIT_ENABLED=false (see README), so raise the limits instead.
  const t = await createTestApp({
    env: {
      LOG_LEVEL: 'silent',
      DATABASE_POOL_SIZE: '10',
      RATE_LIMIT_LOGIN_PER_MINUTE: '10000000',
      RATE_LIMIT_API_PER_MINUTE: '10000000',
    },
  });
  try {
    const url = await t.listen();
    const member = await t.factories.user({ password: 'Bench-Member-Password-1!' });
    const org: { uuid: string }[] = await t.dataSource.query(
      'SELECT u.uuid FROM organizations o JOIN users u ON u.id = o.account_id WHERE o.is_default',
    );
    const orgId = org[0]!.uuid;
    const types = [
      'workspace',
      'template',
      'user',
      'organization_member',
      'api_key',
      'file',
      'group',
      'audit_log',
      'task',
      'chat',
    ];
    const actions = ['read', 'create', 'update', 'delete', 'ssh'];
    const checks: Record<string, unknown> = {};
    for (let i = 0; i < 50; i++) {
      checks[`check-${i}`] = {
        action: actions[i % actions.length],
        object: {
          resource_type: types[i % types.length],
          organization_id: i % 3 === 0 ? '' : orgId,
          owner_id: i % 2 === 0 ? 'me' : '',
          any_org: i % 7 === 0,
        },
      };
    }
    const authcheckBody = JSON.stringify({ checks });
    const sanity = await fetch(`${url}/api/v2/authcheck`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'service-session-token': member.token },
      body: authcheckBody,
    });
    if (sanity.status !== 200 || Object.keys((await sanity.json()) as object).length !== 50)
      throw new Error('authcheck sanity failed');

    // The password hash cost that bounds login throughput.
    const hasher = new PasswordHasher();
    const hash = await hasher.hash('Bench-Member-Password-1!');
    const n = 20;
    let started = performance.now();
    for (let i = 0; i < n; i++) await hasher.verify(hash, 'Bench-Member-Password-1!');
    const sequentialMs = (performance.now() - started) / n;
    started = performance.now();
    await Promise.all(Array.from({ length: 40 }, () => hasher.verify(hash, 'Bench-Member-Password-1!')));
    const parallelPerSecond = 40 / ((performance.now() - started) / 1000);

    // The evaluator alone: compile a subject and answer the same 50 checks, in process.
    const objects: [string, RbacObject][] = Object.values(checks).map((raw) => {
      const c = raw as {
        action: string;
        object: { resource_type: string; organization_id: string; owner_id: string; any_org: boolean };
      };
      return [
        c.action,
        {
          type: c.object.resource_type,
          orgOwner: c.object.organization_id,
          owner: c.object.owner_id === 'me' ? member.user.uuid : '',
          anyOrg: c.object.any_org,
        },
      ];
    });
    const rounds = 2000;
    started = performance.now();
    for (let i = 0; i < rounds; i++) {
      const subject = new CompiledSubject(
        {
          id: member.user.uuid,
          siteRoles: [],
          memberships: [
            {
              orgId,
              roles: ['organization-member', 'organization-workspace-access'],
              sharingMode: 'everyone',
            },
          ],
          scopes: ['coder:all'],
        },
        { ownerWorkspaceExec: true },
      );
      for (const [action, object] of objects) subject.authorize(action, object);
    }
    const evaluatorUs = ((performance.now() - started) * 1000) / rounds;

    const results: Figures[] = [];
    results.push(
      await load('GET /api/v2/users/me (baseline)', {
        url: `${url}/api/v2/users/me`,
        headers: { 'service-session-token': member.token },
      }),
    );
    results.push(
      await load('POST /api/v2/authcheck (50 checks)', {
        url: `${url}/api/v2/authcheck`,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'service-session-token': member.token },
        body: authcheckBody,
      }),
    );
    results.push(
      await load('POST /api/v2/users/login', {
        url: `${url}/api/v2/users/login`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: member.user.email, password: 'Bench-Member-Password-1!' }),
      }),
    );

    process.stdout.write(
      `\nauth benchmark: ${seconds}s per route, ${connections} connections, database ${process.env.DATABASE_URL ? 'PostgreSQL' : 'embedded PGlite'}, UV_THREADPOOL_SIZE=${process.env.UV_THREADPOOL_SIZE ?? '4 (default)'}\n`,
    );
    process.stdout.write(
      `argon2id (${JSON.stringify({ m: PasswordHasher.options.memoryCost, t: PasswordHasher.options.timeCost, p: PasswordHasher.options.parallelism })}) verify: ${sequentialMs.toFixed(1)} ms sequential, ~${Math.round(parallelPerSecond)}/s in parallel\n`,
    );
    process.stdout.write(`evaluator alone: compile subject + 50 checks = ${evaluatorUs.toFixed(0)} µs\n`);
    for (const r of results) {
      process.stdout.write(
        `${r.name.padEnd(38)} ${String(r.rps).padStart(6)} req/s   p50 ${r.p50} ms   p99 ${r.p99} ms   non-2xx ${r.non2xx}   errors ${r.errors}\n`,
      );
    }
  } finally {
    await new Promise((resolve) => setTimeout(resolve, 1000)); // let in-flight requests finish
    await t.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
