import { InterceptionsRecorder } from '../../src/modules/ai-gateway/interceptions-recorder.service';
import { acquireBatchSize } from '../../src/modules/chats/chat-runner.service';
import { ModelGateway } from '../../src/platform/ports/model-gateway';
import type { CreatedUser } from '../helpers/factories';
import { fakeOpenAi, type FakeProvider } from '../helpers/fake-ai-providers';
import { waitFor } from '../helpers/provisioner-process';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { coderClient, EMBEDDED, type Json } from '../workspaces/helpers';

describe('chat runner batch size (chat.acquireBatchSize)', () => {
  it.each([
    [undefined, 10],
    ['', 10],
    ['25', 25],
    ['0', 1],
    ['-7', 1],
    ['99999999999', 2_147_483_647],
    ['abc', 10],
  ])('%s → %d', (raw, expected) => {
    expect(acquireBatchSize(raw)).toBe(expected);
  });
});

/**
 * The chat runner (issue 19.2) on two instances against a fake OpenAI provider: every pending chat is
 * run once, through the AI gateway (interceptions recorded as the chat's owner), with its cost.
 */
describe('chat runner', () => {
  let provider: FakeProvider;
  let a: TestApp;
  let b: TestApp;
  let admin: CreatedUser;
  let alice: CreatedUser;
  let configId: string;
  const client = coderClient(() => a.url!);

  beforeAll(async () => {
    provider = await fakeOpenAi();
    const env = {
      EXPERIMENTS: 'agents',
      CHAT_ACQUIRE_BATCH_SIZE: '3',
      AI_GATEWAY_PROVIDERS: JSON.stringify([
        { name: 'fake', type: 'openai', base_url: `${provider.url}/v1`, key: 'sk-fake' },
      ]),
    };
    a = await createTestApp({ env });
    await a.listen();
    b = EMBEDDED ? a : await createTestApp({ env, schema: a.schema });
    if (b !== a) await b.listen();
    admin = await a.factories.admin({ username: 'runadmin' });
    alice = await a.factories.user({ username: 'runalice' });
    configId = (
      await client.json(
        await client.api(admin.token, 'POST', '/api/experimental/chats/model-configs', {
          provider: 'fake',
          model: 'fake-model',
          input_price_per_million_tokens: '1',
          output_price_per_million_tokens: '2',
        }),
        201,
      )
    ).id;
  });
  afterAll(async () => {
    if (b !== a) await b?.close();
    await a?.close();
    await provider?.close();
  });

  it('runs each pending chat exactly once across the instances; the answer carries its cost', async () => {
    // Every write to api_tokens from now on (a turn must write none: no token is minted per model call).
    await a.dataSource.query(`CREATE TABLE api_token_writes (op text NOT NULL, token_id text)`);
    await a.dataSource.query(
      `CREATE FUNCTION api_token_write() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN INSERT INTO api_token_writes VALUES (TG_OP, COALESCE(NEW.id, OLD.id)::text); RETURN NULL; END $$`,
    );
    await a.dataSource.query(
      `CREATE TRIGGER api_token_write AFTER INSERT OR UPDATE OR DELETE ON api_tokens
         FOR EACH ROW EXECUTE FUNCTION api_token_write()`,
    );
    const existing = (
      (await a.dataSource.query(`SELECT id::text AS id FROM api_tokens`)) as { id: string }[]
    ).map((row) => row.id);
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const chat = await client.json(
        await client.api(alice.token, 'POST', '/api/experimental/chats', {
          model_config_id: configId,
          content: [{ type: 'text', text: `question ${i}` }],
        }),
        201,
      );
      ids.push(chat.id);
    }
    await waitFor(
      async () => {
        const rows = (await a.dataSource.query(`SELECT status FROM chats WHERE id = ANY($1::uuid[])`, [
          ids,
        ])) as { status: string }[];
        return rows.every((row) => row.status === 'waiting') ? true : undefined;
      },
      60_000,
      'every chat answered',
    );
    const completions = provider.seen.filter((request) => request.path.endsWith('/chat/completions'));
    expect(completions).toHaveLength(12);
    expect(completions.map((request) => (request.body.messages as Json[])[0].content).sort()).toEqual(
      ids.map((_, i) => `question ${i}`).sort(),
    );
    for (const id of ids) {
      const { messages } = await client.json(
        await client.api(alice.token, 'GET', `/api/experimental/chats/${id}/messages`),
        200,
      );
      const answers = messages.filter((message: Json) => message.role === 'assistant');
      expect(answers).toHaveLength(1);
      // The fake provider reports 30 prompt and 7 completion tokens: 30 × $1 + 7 × $2 per million = 44 micro-dollars.
      expect(answers[0]).toMatchObject({
        total_cost_micros: 44,
        usage: { input_tokens: 30, output_tokens: 7 },
      });
    }
    // Interceptions are written in batches just after their responses end.
    for (const app of new Set([a, b])) await app.app.get(InterceptionsRecorder).flush();
    const [interceptions] = (await a.dataSource.query(
      `SELECT count(*)::int AS n FROM ai_gateway_interceptions i JOIN users u ON u.id::text = i.initiator_id::text OR u.uuid::text = i.initiator_id::text
        WHERE u.name = 'runalice'`,
    )) as { n: number }[];
    expect(interceptions!.n).toBe(12);
    // Recorded as a data-plane client's call: the chat client, the chat as the session, the usage; no API key.
    const recorded = (await a.dataSource.query(
      `SELECT i.client, i.api_key_id, i.session_id, i.credential_kind, i.status_code, u.input_tokens::int AS input, u.output_tokens::int AS output
         FROM ai_gateway_interceptions i JOIN ai_gateway_token_usages u ON u.interception_id = i.id
        WHERE i.session_id = ANY($1::text[])`,
      [ids],
    )) as Json[];
    expect(recorded).toHaveLength(12);
    for (const row of recorded)
      expect(row).toMatchObject({
        client: 'devplane-chat',
        api_key_id: null,
        credential_kind: 'centralized',
        status_code: 200,
        input: 30,
        output: 7,
      });
    // The turns wrote nothing to api_tokens: no insert, no delete; the only updates are the last use of
    // the tokens this test called the API with (the activity recorder).
    const writes = (await a.dataSource.query(`SELECT op, token_id FROM api_token_writes`)) as {
      op: string;
      token_id: string;
    }[];
    expect(writes.filter((write) => write.op !== 'UPDATE' || !existing.includes(write.token_id))).toEqual([]);
  });

  it('a model that asks for tools in a chat without a workspace leaves it requiring action; a provider error leaves it in error', async () => {
    provider.script.push({
      toolCalls: [{ id: 'call_1', name: 'write_file', arguments: '{"path":"a.txt","content":"x"}' }],
    });
    const tools = await client.json(
      await client.api(alice.token, 'POST', '/api/experimental/chats', {
        model_config_id: configId,
        content: [{ type: 'text', text: 'write it' }],
      }),
      201,
    );
    await waitFor(
      async () =>
        (await client.json(await client.api(alice.token, 'GET', `/api/experimental/chats/${tools.id}`), 200))
          .status === 'requires_action'
          ? true
          : undefined,
      30_000,
      'requires_action',
    );
    provider.script.push({ error: { status: 400, type: 'invalid_request_error', message: 'no such model' } });
    const broken = await client.json(
      await client.api(alice.token, 'POST', '/api/experimental/chats', {
        model_config_id: configId,
        content: [{ type: 'text', text: 'fail' }],
      }),
      201,
    );
    await waitFor(
      async () =>
        (await client.json(await client.api(alice.token, 'GET', `/api/experimental/chats/${broken.id}`), 200))
          .status === 'error'
          ? true
          : undefined,
      30_000,
      'error',
    );
  });

  it("a suspended or deleted owner gets no model call: the chat ends in error with the guard's text, the provider never hears of it", async () => {
    const carol = await a.factories.user({ username: 'runcarol' });
    const [row] = (await a.dataSource.query(
      `SELECT id::text AS id, uuid::text AS uuid FROM users WHERE id = $1`,
      [carol.user.id],
    )) as { id: string; uuid: string }[];
    await a.dataSource.query(`UPDATE users SET status = 'suspended' WHERE id = $1`, [row.id]);
    const seenBefore = provider.seen.length;
    // A pending chat of the suspended owner, as one left from before the suspension.
    const [chat] = (await a.dataSource.query(
      `WITH made AS (
         INSERT INTO chats (organization_id, owner_id, last_model_config_id, title, status)
         SELECT o.uuid, $1::uuid, $2::uuid, 'suspended owner', 'pending' FROM users o WHERE o.lower_name = 'default'
         RETURNING id)
       INSERT INTO chat_messages (chat_id, role, content)
       SELECT id, 'user', '[{"type":"text","text":"still there?"}]'::jsonb FROM made RETURNING chat_id::text AS id`,
      [row.uuid, configId],
    )) as { id: string }[];
    const failed = await waitFor(
      async () => {
        const [state] = (await a.dataSource.query(`SELECT status, last_error FROM chats WHERE id = $1`, [
          chat.id,
        ])) as { status: string; last_error: string | null }[];
        return state.status === 'error' ? state : undefined;
      },
      30_000,
      'the chat in error',
    );
    expect(failed.last_error).toContain('User is not active (status = "suspended")');
    expect(provider.seen.length).toBe(seenBefore);

    // The port itself (every in-process caller): deleted, suspended and login-prohibited initiators are refused.
    const gateway = a.app.get(ModelGateway);
    const call = (initiatorId: string) =>
      gateway.call({
        initiatorId,
        provider: 'fake',
        path: '/v1/chat/completions',
        body: { model: 'fake-model', messages: [{ role: 'user', content: 'x' }] },
        sessionId: null,
        userAgent: 'test',
      });
    await expect(call(row.id)).rejects.toMatchObject({ kind: 'unauthenticated', reason: 'inactive' });
    await expect(call('999999999')).rejects.toThrow('User deleted.');
    await a.dataSource.query(`UPDATE users SET status = 'active', prohibit_login = true WHERE id = $1`, [
      row.id,
    ]);
    await expect(call(row.id)).rejects.toThrow('prohibited from signing in');
    expect(provider.seen.length).toBe(seenBefore);
    // An active owner is called (the check is not a blanket refusal).
    await a.dataSource.query(`UPDATE users SET prohibit_login = false WHERE id = $1`, [row.id]);
    expect((await call(row.id)).status).toBe(200);
    expect(provider.seen.length).toBe(seenBefore + 1);
  });
});
