import autocannon from 'autocannon';
import { performance } from 'node:perf_hooks';
import {
  matchRules,
  RuleSnapshot,
  scopeKey,
  type StoredRule,
} from '../src/modules/workflows/engine/rule-snapshot';
import { RuleStore } from '../src/modules/workflows/engine/rule-store.service';
import { WorkflowRulesService } from '../src/modules/workflows/workflow-rules.service';
import { WorkflowAccessControlService } from '../src/modules/workflows/workflow-access-control.service';
import type { CheckSubject } from '../src/modules/workflows/checks/check.types';
import { EventBus } from '../src/platform/events/event-bus.service';
import { createTestApp } from '../test/helpers/test-app';

/**
 * Issue 3 item 10.
 * 1. Rule matching, in memory: one event against 1,000 rules with mixed checks (µs per event),
 *    plus the fast path (an event no rule lists) and the access-control pre-check.
 * 2. HTTP: GET .../workflows/user with 1,000 rules in the scope (requests/s, p50, p99; autocannon),
 *    create latency (sequential POSTs, p50/p99), and the engine end to end (EventBus.emitAsync).
 * In-process app on loopback, embedded PGlite unless DATABASE_URL is set.
 * Env: BENCH_SECONDS (default 10), BENCH_CONNECTIONS (default 10), BENCH_RULES (default 1000), BENCH_ONLY=matcher.
 * Run: node -r @swc-node/register bench/workflows.bench.ts
 */
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const ruleCount = Number(process.env.BENCH_RULES ?? 1000);

const FILE = 'OCA\\WorkflowEngine\\Entity\\File';
const CREATED = 'OCP\\Files\\Events\\Node\\NodeCreatedEvent';
const NOTIFY = 'OCA\\FlowNotifications\\Flow\\Operation';
const ACCESS = 'OCA\\FilesAccessControl\\Operation';
const C = (name: string, operator: string, value: string) => ({
  class: `OCA\\WorkflowEngine\\Check\\${name}`,
  operator,
  value,
});

/** Mixed checks; none of them matches the benchmark event, so every rule is evaluated (worst case). */
function checksFor(i: number) {
  switch (i % 6) {
    case 0:
      return [C('FileName', 'matches', `/^report-${i}\\.(pdf|docx?)$/i`)];
    case 1:
      return [C('FileSize', 'greater', `${100 + i} MB`), C('FileName', '!is', `x${i}.bin`)];
    case 2:
      return [C('FileMimeType', 'is', `application/x-bench-${i}`)];
    case 3:
      return [C('RequestRemoteAddress', 'matchesIPv4', `10.${i % 250}.0.0/16`)];
    case 4:
      return [
        C('RequestUserAgent', 'matches', `/bench-client\\/${i}/`),
        C('RequestTime', 'in', '["00:00 Europe/Berlin","23:59 Europe/Berlin"]'),
      ];
    default:
      return [C('FileName', 'is', `exact-${i}.txt`), C('RequestURL', '!is', 'webdav')];
  }
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function matcherBench(): Promise<void> {
  const rules: StoredRule[] = [];
  for (let i = 1; i <= ruleCount; i++) {
    rules.push({
      id: i,
      class: NOTIFY,
      name: `rule ${i}`,
      checks: checksFor(i),
      operation: '',
      entity: FILE,
      events: [CREATED],
      description: '',
      scopeType: 1,
      scopeUserId: '42',
      scopeActorName: 'bench',
    });
  }
  const snapshot = new RuleSnapshot(rules);
  const subject = (): CheckSubject => ({
    entity: FILE,
    actorUserId: '7',
    request: {
      remoteAddress: '192.168.1.20',
      userAgent: 'curl/8.5.0',
      url: 'https://devplane.test/api/v1/repos/a/b/releases/1/assets',
      method: 'POST',
      fileTransfer: false,
    },
    file: { name: 'report.txt', mimeType: 'text/plain', size: 4096 },
    now: Math.floor(Date.now() / 1000),
  });
  const request = () => ({
    operationClass: NOTIFY,
    eventName: CREATED,
    scopes: [scopeKey(0, ''), scopeKey(1, '7'), scopeKey(1, '42')],
    subject: subject(),
  });
  const t0 = performance.now();
  await matchRules(snapshot, request()); // compiles the 1,000 rules once (what the first event after a change pays)
  const compileMs = performance.now() - t0;
  for (let i = 0; i < 200; i++) await matchRules(snapshot, request());
  const iterations = 2000;
  const samples: number[] = [];
  let matched = 0;
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) {
    const s = process.hrtime.bigint();
    matched += (await matchRules(snapshot, request())).length;
    samples.push(Number(process.hrtime.bigint() - s) / 1000);
  }
  const totalUs = Number(process.hrtime.bigint() - start) / 1000;
  samples.sort((a, b) => a - b);
  console.log(`matcher: ${ruleCount} rules, one event, all rules evaluated (${matched} matches)`);
  console.log(`  first event after a change (compile): ${compileMs.toFixed(1)} ms`);
  console.log(
    `  ${(totalUs / iterations).toFixed(1)} µs/event (p50 ${percentile(samples, 50).toFixed(1)}, p99 ${percentile(samples, 99).toFixed(1)}), ` +
      `${((totalUs / iterations / ruleCount) * 1000).toFixed(0)} ns/rule, ${Math.round((iterations / totalUs) * 1e6)} events/s`,
  );
  const fast = process.hrtime.bigint();
  for (let i = 0; i < 100_000; i++) snapshot.eventClasses.get('OCP\\Files\\Events\\Node\\NodeDeletedEvent');
  console.log(
    `  fast path (no rule lists the event): ${(Number(process.hrtime.bigint() - fast) / 100_000).toFixed(0)} ns/event`,
  );
}

async function httpBench(): Promise<void> {
  const t = await createTestApp({ env: { LOG_LEVEL: 'silent', DATABASE_POOL_SIZE: '10' } });
  try {
    const url = await t.listen();
    const user = await t.factories.user();
    const rulesService = t.app.get(WorkflowRulesService);
    const scope = { type: 1 as const, userId: user.user.id };
    const seedStart = performance.now();
    for (let i = 1; i <= ruleCount; i++) {
      await rulesService.create(scope, {
        class: NOTIFY,
        name: `rule ${i}`,
        checks: checksFor(i),
        operation: '{"inscription":"bench"}',
        entity: FILE,
        events: [CREATED],
      });
    }
    console.log(
      `seeded ${ruleCount} rules through the service in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`,
    );

    const path = '/ocs/v2.php/apps/workflowengine/api/v1/workflows/user?format=json';
    const headers = { Authorization: `Bearer ${user.token}`, 'OCS-APIRequest': 'true' };
    const sanity = await fetch(`${url}${path}`, { headers });
    const body = (await sanity.json()) as { ocs: { data: Record<string, unknown[]> } };
    const bytes = JSON.stringify(body).length;
    if (sanity.status !== 200 || body.ocs.data[NOTIFY]?.length !== ruleCount)
      throw new Error(`index sanity failed: ${sanity.status}`);
    const baseline = await autocannon({
      url: `${url}/ocs/v2.php/cloud/user?format=json`,
      headers,
      connections,
      duration: seconds,
    });
    console.log(
      `baseline GET /ocs/v2.php/cloud/user (same auth + envelope, tiny body): ${Math.round(baseline.requests.average)} req/s, ` +
        `p50 ${baseline.latency.p50} ms, p99 ${baseline.latency.p99} ms`,
    );
    const result = await autocannon({ url: `${url}${path}`, headers, connections, duration: seconds });
    console.log(
      `GET workflows/user with ${ruleCount} rules (${(bytes / 1024).toFixed(0)} KiB JSON): ${Math.round(result.requests.average)} req/s, ` +
        `p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, non-2xx ${result.non2xx}, errors ${result.errors}`,
    );

    // Create latency, sequential, through HTTP (each create also drops the caches).
    const createPath = '/ocs/v2.php/apps/workflowengine/api/v1/workflows/user?format=json';
    const latencies: number[] = [];
    for (let i = 0; i < 200; i++) {
      const s = performance.now();
      const res = await fetch(`${url}${createPath}`, {
        method: 'POST',
        headers: { ...headers, 'Content-Type': 'application/json' },
        body: JSON.stringify({
          class: NOTIFY,
          name: `new ${i}`,
          checks: checksFor(i),
          operation: '',
          entity: FILE,
          events: [CREATED],
        }),
      });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`create failed: ${res.status}`);
      latencies.push(performance.now() - s);
    }
    latencies.sort((a, b) => a - b);
    console.log(
      `POST workflows/user (sequential, 200): p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms`,
    );

    // Engine end to end: the user owns the subject, so all their rules are considered.
    const store = t.app.get(RuleStore);
    await store.snapshot();
    const events = t.app.get(EventBus);
    const payload = {
      fileId: '1',
      kind: 'issue_attachment' as const,
      name: 'report.txt',
      size: 4096,
      mimeType: 'text/plain',
      actorUserId: null,
      ownerUserIds: [user.user.id],
      request: {
        remoteAddress: '192.168.1.20',
        userAgent: 'curl/8.5.0',
        url: 'https://devplane.test/x',
        method: 'POST',
      },
    };
    await events.emitAsync('file.created', payload);
    const n = 1000;
    const s = performance.now();
    for (let i = 0; i < n; i++) await events.emitAsync('file.created', payload);
    console.log(
      `engine end to end (EventBus.emitAsync file.created, ${ruleCount + 200} rules in scope, no match): ${(((performance.now() - s) / n) * 1000).toFixed(0)} µs/event`,
    );

    // Access-control pre-check with 1,000 admin rules.
    for (let i = 1; i <= ruleCount; i++) {
      await rulesService.create(
        { type: 0, userId: '' },
        { class: ACCESS, name: `ac ${i}`, checks: checksFor(i), operation: 'deny', entity: FILE, events: [] },
      );
    }
    const access = t.app.get(WorkflowAccessControlService);
    const file = {
      name: 'report.txt',
      size: 4096,
      mimeType: 'text/plain',
      actorUserId: null,
      request: payload.request,
    };
    await access.isFileAllowed(file);
    const a = performance.now();
    for (let i = 0; i < n; i++) await access.isFileAllowed(file);
    console.log(
      `access control pre-check (${ruleCount} admin rules, none matches): ${(((performance.now() - a) / n) * 1000).toFixed(0)} µs/file`,
    );
  } finally {
    await t.close();
  }
}

async function main(): Promise<void> {
  await matcherBench();
  if (process.env.BENCH_ONLY !== 'matcher') await httpBench();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
