import { deflateSync } from 'node:zlib';
import { ChatRetentionService } from '../../src/modules/chats/chat-retention.service';
import { chatFromRow, ChatsService } from '../../src/modules/chats/chats.service';
import type { CreatedUser } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { loadResponseSchemas, ResponseRecorder } from '../coder-client/response-schemas';
import { coderClient, type Json } from '../workspaces/helpers';

/** A real 1×1 PNG (signature, IHDR, IDAT, IEND). */
function png(): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buffer: Buffer) => {
    let c = 0xffffffff;
    for (const byte of buffer) c = crcTable[(c ^ byte) & 0xff]! ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type), data]);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([length, body, sum]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(1, 0);
  header.writeUInt32BE(1, 4);
  header[8] = 8;
  header[9] = 2;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.from([0, 255, 0, 0]))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const ROUTE_NOT_FOUND = 'Route not found.';

describe('chats without the agents experiment', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    await t.listen();
  });
  afterAll(async () => t.close());

  it('are unknown routes (404)', async () => {
    const admin = await t.factories.admin({ username: 'noagents' });
    const client = coderClient(() => t.url!);
    const response = await client.json(await client.api(admin.token, 'GET', '/api/experimental/chats'), 404);
    expect(response.message).toBe(ROUTE_NOT_FOUND);
  });
});

describe('chats (issue 19): model configurations, chats, archive, cost, files, retention', () => {
  let t: TestApp;
  let admin: CreatedUser;
  let alice: CreatedUser;
  let bob: CreatedUser;
  let configId: string;
  let freeConfigId: string;
  let unpricedConfigId: string;
  let orgId: string;
  const recorder = new ResponseRecorder();
  const client = coderClient(() => t.url!, recorder);
  const { api, json } = client;
  const text = (value: string) => [{ type: 'text', text: value }];
  const newChat = async (token: string, body: Record<string, unknown>) =>
    json(
      await api(token, 'POST', '/api/experimental/chats', {
        model_config_id: configId,
        content: text('hello'),
        ...body,
      }),
      201,
    );

  beforeAll(async () => {
    t = await createTestApp({
      env: {
        EXPERIMENTS: 'agents',
        CHAT_RETENTION_DAYS: '1',
        CHAT_RUNNER_ENABLED: 'false',
        AI_GATEWAY_PROVIDERS: JSON.stringify([
          { name: 'openai-main', type: 'openai', base_url: 'http://127.0.0.1:9/v1', key: 'sk-x' },
        ]),
      },
    });
    await t.listen();
    admin = await t.factories.admin({ username: 'chatadmin' });
    alice = await t.factories.user({ username: 'chatalice' });
    bob = await t.factories.user({ username: 'chatbob' });
    orgId = (
      (await t.dataSource.query(`SELECT uuid FROM users WHERE lower_name = 'default'`)) as { uuid: string }[]
    )[0]!.uuid;
  });
  afterAll(async () => t.close());

  it('are left out of the public OpenAPI document and served in the experimental one', async () => {
    const isChat = (route: string) => route.startsWith('/api/experimental/chats');
    const publicDocument = (await (await fetch(`${t.url}/docs-json`)).json()) as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(publicDocument.paths).filter(isChat)).toEqual([]);
    expect(Object.keys(publicDocument.paths)).toContain('/api/v2/workspaces/{workspace}');
    const experimental = (await (await fetch(`${t.url}/docs-experimental-json`)).json()) as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(experimental.paths).length).toBeGreaterThan(10);
    expect(Object.keys(experimental.paths).every(isChat)).toBe(true);
    expect(Object.keys(experimental.paths)).toContain('/api/experimental/chats/{chat}/archive');
  });

  describe('model configurations', () => {
    it('owners add them; members list them; bad prices and unknown providers are 400; members may not add (403)', async () => {
      const created = await json(
        await api(admin.token, 'POST', '/api/experimental/chats/model-configs', {
          provider: 'openai-main',
          model: 'gpt-4o',
          display_name: 'GPT-4o',
          input_price_per_million_tokens: '2.5',
          output_price_per_million_tokens: '10',
          cache_read_price_per_million_tokens: '1.25',
        }),
        201,
      );
      expect(created).toMatchObject({
        provider: 'openai-main',
        model: 'gpt-4o',
        input_price_per_million_tokens: '2.5',
        output_price_per_million_tokens: '10',
        cache_write_price_per_million_tokens: null,
      });
      configId = created.id;
      freeConfigId = (
        await json(
          await api(admin.token, 'POST', '/api/experimental/chats/model-configs', {
            provider: 'openai-main',
            model: 'free',
            input_price_per_million_tokens: '0',
            output_price_per_million_tokens: '0',
          }),
          201,
        )
      ).id;
      unpricedConfigId = (
        await json(
          await api(admin.token, 'POST', '/api/experimental/chats/model-configs', {
            provider: 'openai-main',
            model: 'mystery',
          }),
          201,
        )
      ).id;
      const listed = await json(await api(alice.token, 'GET', '/api/experimental/chats/model-configs'), 200);
      expect(listed).toHaveLength(3);
      await json(
        await api(alice.token, 'POST', '/api/experimental/chats/model-configs', {
          provider: 'openai-main',
          model: 'x',
        }),
        403,
      );
      await json(
        await api(admin.token, 'POST', '/api/experimental/chats/model-configs', {
          provider: 'openai-main',
          model: 'x',
          input_price_per_million_tokens: 'cheap',
        }),
        400,
      );
      await json(
        await api(admin.token, 'POST', '/api/experimental/chats/model-configs', {
          provider: 'nope',
          model: 'x',
        }),
        400,
      );
    });
  });

  let root: Json;
  let child: Json;
  let grandchild: Json;
  let sibling: Json;
  describe('chats and messages', () => {
    it('creates a chat with its first message; children carry parent and root', async () => {
      root = await newChat(alice.token, { content: text('Plan the release'), labels: { team: 'a' } });
      expect(root).toMatchObject({
        owner_id: alice.user.uuid,
        owner_username: 'chatalice',
        organization_id: orgId,
        title: 'Plan the release',
        archived: false,
        labels: { team: 'a' },
        last_model_config_id: configId,
      });
      expect(root.parent_chat_id).toBeUndefined();
      child = await newChat(alice.token, { parent_chat_id: root.id, content: text('subtask') });
      expect(child).toMatchObject({ parent_chat_id: root.id, root_chat_id: root.id });
      grandchild = await newChat(alice.token, { parent_chat_id: child.id, content: text('deeper') });
      expect(grandchild).toMatchObject({ parent_chat_id: child.id, root_chat_id: root.id });
      sibling = await newChat(alice.token, { parent_chat_id: root.id, content: text('other') });
      const page = await json(
        await api(alice.token, 'GET', `/api/experimental/chats/${root.id}/messages`),
        200,
      );
      expect(page).toEqual({
        messages: [expect.objectContaining({ role: 'user', content: text('Plan the release') })],
        queued_messages: [],
        has_more: false,
      });
      const posted = await json(
        await api(alice.token, 'POST', `/api/experimental/chats/${root.id}/messages`, {
          content: text('more'),
        }),
        201,
      );
      expect(posted).toEqual({ message: expect.objectContaining({ role: 'user' }), queued: false });
    });

    it('bad input is 400; what others may not read is 404; DELETE does not exist (404)', async () => {
      await json(
        await api(alice.token, 'POST', '/api/experimental/chats', { model_config_id: configId, content: [] }),
        400,
      );
      await json(
        await api(alice.token, 'POST', '/api/experimental/chats', {
          model_config_id: configId,
          content: [{ type: 'video' }],
        }),
        400,
      );
      await json(
        await api(alice.token, 'POST', '/api/experimental/chats', {
          model_config_id: '00000000-0000-4000-8000-000000000000',
          content: text('x'),
        }),
        400,
      );
      await json(
        await api(alice.token, 'POST', '/api/experimental/chats', {
          model_config_id: configId,
          content: text('x'),
          workspace_id: '00000000-0000-4000-8000-000000000000',
        }),
        400,
      );
      await json(await api(alice.token, 'POST', '/api/experimental/chats', { content: text('x') }), 400);
      await json(await api(bob.token, 'GET', `/api/experimental/chats/${root.id}`), 404);
      await json(
        await api(bob.token, 'POST', `/api/experimental/chats/${root.id}/messages`, {
          content: text('intrude'),
        }),
        404,
      );
      await json(
        await api(bob.token, 'POST', `/api/experimental/chats`, {
          model_config_id: configId,
          content: text('x'),
          parent_chat_id: root.id,
        }),
        404,
      );
      await json(await api(alice.token, 'GET', '/api/experimental/chats/not-a-uuid'), 404);
      await json(await api(alice.token, 'GET', `/api/experimental/chats/${'-'.repeat(36)}`), 404);
      const deleted = await json(await api(alice.token, 'DELETE', `/api/experimental/chats/${root.id}`), 404);
      expect(deleted.message).toBe(ROUTE_NOT_FOUND);
      await json(await api('', 'GET', '/api/experimental/chats'), 401);
    });

    it('archive takes the chat and every descendant; unarchive touches only that chat; archived chats leave the default list', async () => {
      const narrow = await t.factories.token(alice.user, { scopes: ['chat:read'], name: 'chat-read' });
      await json(await api(narrow, 'POST', `/api/experimental/chats/${root.id}/archive`), 403);
      await json(await api(bob.token, 'POST', `/api/experimental/chats/${root.id}/archive`), 404);
      await json(await api(alice.token, 'POST', `/api/experimental/chats/${root.id}/archive`), 204);
      for (const chat of [root, child, grandchild, sibling])
        expect(
          (await json(await api(alice.token, 'GET', `/api/experimental/chats/${chat.id}`), 200)).archived,
        ).toBe(true);
      expect(
        (await json(await api(alice.token, 'GET', '/api/experimental/chats'), 200)).map(
          (chat: Json) => chat.id,
        ),
      ).toEqual([]);
      await json(await api(alice.token, 'POST', `/api/experimental/chats/${child.id}/unarchive`), 204);
      const states = await Promise.all(
        [root, child, grandchild, sibling].map(
          async (chat) =>
            (await json(await api(alice.token, 'GET', `/api/experimental/chats/${chat.id}`), 200)).archived,
        ),
      );
      expect(states).toEqual([true, false, true, true]);
      expect(
        (await json(await api(alice.token, 'GET', '/api/experimental/chats'), 200)).map(
          (chat: Json) => chat.id,
        ),
      ).toEqual([child.id]);
      const archived = await json(
        await api(alice.token, 'GET', '/api/experimental/chats?q=archived:true'),
        200,
      );
      expect(archived.map((chat: Json) => chat.id).sort()).toEqual(
        [root.id, grandchild.id, sibling.id].sort(),
      );
      await json(await api(alice.token, 'GET', '/api/experimental/chats?q=bogus:1'), 400);
      await json(await api(alice.token, 'POST', `/api/experimental/chats/${root.id}/unarchive`), 204);
    });
  });

  describe('cost', () => {
    it('assistant messages carry their cost: priced, free (0) and unpriced (null); the chat tree sums them', async () => {
      const chats = t.app.get(ChatsService);
      const usage = { input: 1000, output: 500, reasoning: 200, cacheRead: 2000, cacheWrite: 0 };
      await t.dataSource.transaction(async (manager) => {
        await chats.recordAssistantMessage(
          manager,
          { id: root.id },
          { content: text('done'), modelConfigId: configId, usage, runtimeMs: 1200 },
        );
        await chats.recordAssistantMessage(
          manager,
          { id: child.id },
          { content: text('free'), modelConfigId: freeConfigId, usage, runtimeMs: 10 },
        );
        await chats.recordAssistantMessage(
          manager,
          { id: grandchild.id },
          { content: text('?'), modelConfigId: unpricedConfigId, usage, runtimeMs: 10 },
        );
      });
      // 1000 × 2.5 + 500 × 10 + 2000 × 1.25 = 10,000 micro-dollars (reasoning inside output).
      const { messages } = await json(
        await api(alice.token, 'GET', `/api/experimental/chats/${root.id}/messages`),
        200,
      );
      const assistant = messages.find((message: Json) => message.role === 'assistant');
      expect(assistant).toMatchObject({
        total_cost_micros: 10_000,
        usage: { input_tokens: 1000, output_tokens: 500, reasoning_tokens: 200 },
      });
      const free = (
        await json(await api(alice.token, 'GET', `/api/experimental/chats/${child.id}/messages`), 200)
      ).messages.find((message: Json) => message.role === 'assistant');
      expect(free.total_cost_micros).toBe(0);
      const unpriced = (
        await json(await api(alice.token, 'GET', `/api/experimental/chats/${grandchild.id}/messages`), 200)
      ).messages.find((message: Json) => message.role === 'assistant');
      expect(unpriced.total_cost_micros).toBeNull();
      const cost = await json(await api(alice.token, 'GET', `/api/experimental/chats/${child.id}/cost`), 200);
      expect(cost).toEqual({
        chat_id: child.id,
        total_cost_micros: 10_000,
        request_count: 3,
        unpriced_request_count: 1,
      });
    });

    it('the summary for yourself (by model, by chat), 403 for another user, the owners rollup', async () => {
      const summary = await json(
        await api(alice.token, 'GET', '/api/experimental/chats/cost/me/summary'),
        200,
      );
      expect(summary).toMatchObject({
        total_cost_micros: 10_000,
        priced_message_count: 2,
        unpriced_message_count: 1,
        total_input_tokens: 3000,
      });
      expect(summary.by_chat).toEqual([
        expect.objectContaining({
          root_chat_id: root.id,
          chat_title: 'Plan the release',
          total_cost_micros: 10_000,
        }),
      ]);
      expect(summary.by_model.map((row: Json) => row.model)).toEqual(
        expect.arrayContaining(['gpt-4o', 'free', 'mystery']),
      );
      await json(await api(bob.token, 'GET', '/api/experimental/chats/cost/chatalice/summary'), 403);
      await json(
        await api(alice.token, 'GET', '/api/experimental/chats/cost/me/summary?start_date=yesterday'),
        400,
      );
      const past = await json(
        await api(
          alice.token,
          'GET',
          '/api/experimental/chats/cost/me/summary?start_date=2020-01-01T00:00:00Z&end_date=2020-02-01T00:00:00Z',
        ),
        200,
      );
      expect(past.total_cost_micros).toBe(0);
      const rollup = await json(await api(admin.token, 'GET', '/api/experimental/chats/cost/users'), 200);
      expect(rollup.count).toBe(1);
      expect(rollup.users[0]).toMatchObject({
        username: 'chatalice',
        total_cost_micros: 10_000,
        chat_count: 1,
      });
      await json(await api(alice.token, 'GET', '/api/experimental/chats/cost/users'), 403);
    });
  });

  describe('files', () => {
    const upload = (token: string, body: Buffer, type: string, disposition?: string, organization = orgId) =>
      fetch(`${t.url}/api/experimental/chats/files?organization=${organization}`, {
        method: 'POST',
        headers: {
          'Service-Session-Token': token,
          'Content-Type': type,
          ...(disposition === undefined ? {} : { 'Content-Disposition': disposition }),
        },
        body,
      });

    let fileId: string;
    it('stores an image checked by its bytes and serves it immutable; a message may reference it', async () => {
      const created = await json(
        await upload(alice.token, png(), 'image/png', 'attachment; filename="dot.png"'),
        201,
      );
      fileId = created.id;
      const response = await api(alice.token, 'GET', `/api/experimental/chats/files/${fileId}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toBe('private, max-age=31536000, immutable');
      expect(response.headers.get('content-type')).toBe('image/png');
      expect(Buffer.from(await response.arrayBuffer()).equals(png())).toBe(true);
      const metadata = await json(
        await api(alice.token, 'GET', `/api/experimental/chats/files/${fileId}/metadata`),
        200,
      );
      expect(metadata).toMatchObject({ name: 'dot.png', mime_type: 'image/png', size_bytes: png().length });
      await json(await api(bob.token, 'GET', `/api/experimental/chats/files/${fileId}`), 404);
      const withFile = await newChat(alice.token, {
        content: [
          { type: 'text', text: 'look' },
          { type: 'file', file_id: fileId },
        ],
      });
      expect(withFile.id).toBeDefined();
      await json(
        await api(bob.token, 'POST', '/api/experimental/chats', {
          model_config_id: configId,
          content: [{ type: 'file', file_id: fileId }],
        }),
        400,
      );
    });

    it('refuses by content: a mismatch, a type that is not an image, no filename, too large, no organization', async () => {
      const mismatch = await json(
        await upload(alice.token, png(), 'image/jpeg', 'attachment; filename="x.jpg"'),
        400,
      );
      expect(mismatch.message).toBe('File content type does not match Content-Type header.');
      const svg = await json(
        await upload(
          alice.token,
          Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'),
          'image/svg+xml',
          'attachment; filename="x.svg"',
        ),
        400,
      );
      expect(svg.message).toBe('Unsupported file type.');
      const noName = await json(await upload(alice.token, png(), 'image/png'), 400);
      expect(noName.message).toBe('Filename is required.');
      const big = Buffer.concat([png(), Buffer.alloc(10 * 1024 * 1024)]);
      const tooLarge = await json(
        await upload(alice.token, big, 'image/png', 'attachment; filename="big.png"'),
        413,
      );
      expect(tooLarge.message).toBe('File too large.');
      await json(await upload(alice.token, png(), 'image/png', 'attachment; filename="x.png"', 'nope'), 400);
      const sniffed = await json(
        await upload(alice.token, png(), 'application/octet-stream', 'attachment; filename="y.png"'),
        201,
      );
      expect(sniffed.id).toBeDefined();
    });

    it('retention purges archived chats past the period with their messages, files and blobs', async () => {
      const old = await newChat(alice.token, { content: [{ type: 'text', text: 'old' }] });
      const oldChild = await newChat(alice.token, { parent_chat_id: old.id, content: text('old child') });
      const image = await json(
        await upload(alice.token, png(), 'image/png', 'attachment; filename="old.png"'),
        201,
      );
      await json(
        await api(alice.token, 'POST', `/api/experimental/chats/${old.id}/messages`, {
          content: [{ type: 'file', file_id: image.id }],
        }),
        201,
      );
      await json(await api(alice.token, 'POST', `/api/experimental/chats/${old.id}/archive`), 204);
      const kept = await newChat(alice.token, { content: text('recently archived') });
      await json(await api(alice.token, 'POST', `/api/experimental/chats/${kept.id}/archive`), 204);
      await t.dataSource.query(`UPDATE chats SET archived_at = now() - interval '2 days' WHERE id = $1`, [
        old.id,
      ]);
      const purged = await t.app.get(ChatRetentionService).purge();
      expect(purged).toEqual({ chats: 2, files: 1 });
      await json(await api(alice.token, 'GET', `/api/experimental/chats/${old.id}`), 404);
      await json(await api(alice.token, 'GET', `/api/experimental/chats/${oldChild.id}`), 404);
      await json(await api(alice.token, 'GET', `/api/experimental/chats/files/${image.id}`), 404);
      await json(await api(alice.token, 'GET', `/api/experimental/chats/${kept.id}`), 200);
    });
  });

  it('subagents spawned by a chat join its tree, up to 16 per tree (then the spawn is refused)', async () => {
    const chats = t.app.get(ChatsService);
    const top = await newChat(alice.token, { content: text('delegating') });
    const parent = chatFromRow(
      (
        (await t.dataSource.query('SELECT * FROM chats WHERE id = $1', [top.id])) as Record<string, unknown>[]
      )[0]!,
    );
    const first = await chats.spawnSubagent(parent, { prompt: 'one', title: 'One' });
    expect(first).toMatchObject({
      parentChatId: top.id,
      rootChatId: top.id,
      ownerId: parent.ownerId,
      title: 'One',
    });
    // A subagent of the subagent still counts in the same tree.
    await chats.spawnSubagent(first, { prompt: 'nested' });
    for (let i = 2; i < 16; i++) await chats.spawnSubagent(parent, { prompt: `more ${i}` });
    await expect(chats.spawnSubagent(parent, { prompt: 'one too many' })).rejects.toThrow(
      /Subagent limit reached/,
    );
    await expect(chats.spawnSubagent(parent, { prompt: '  ' })).rejects.toThrow(/needs a prompt/);
    const [row] = (await t.dataSource.query('SELECT count(*)::int AS n FROM chats WHERE root_chat_id = $1', [
      top.id,
    ])) as { n: number }[];
    expect(row!.n).toBe(16);
  });

  it('owners change and delete model configurations: 403 for members, 404 unknown, 400 bad price, 409 in use', async () => {
    const spare = await json(
      await api(admin.token, 'POST', '/api/experimental/chats/model-configs', {
        provider: 'openai-main',
        model: 'spare',
        input_price_per_million_tokens: '1',
      }),
      201,
    );
    const changed = await json(
      await api(admin.token, 'PATCH', `/api/experimental/chats/model-configs/${spare.id}`, {
        display_name: 'Spare',
        input_price_per_million_tokens: '',
        output_price_per_million_tokens: '2.5',
      }),
      200,
    );
    expect(changed).toMatchObject({
      id: spare.id,
      model: 'spare',
      display_name: 'Spare',
      input_price_per_million_tokens: null,
      output_price_per_million_tokens: '2.5',
    });
    await json(
      await api(alice.token, 'PATCH', `/api/experimental/chats/model-configs/${spare.id}`, { model: 'x' }),
      403,
    );
    await json(
      await api(admin.token, 'PATCH', `/api/experimental/chats/model-configs/${spare.id}`, {
        output_price_per_million_tokens: 'free',
      }),
      400,
    );
    await json(
      await api(admin.token, 'PATCH', `/api/experimental/chats/model-configs/${spare.id}`, {
        provider: 'nope',
      }),
      400,
    );
    await json(
      await api(
        admin.token,
        'PATCH',
        '/api/experimental/chats/model-configs/00000000-0000-4000-8000-000000000000',
        {
          model: 'x',
        },
      ),
      404,
    );
    await json(await api(alice.token, 'DELETE', `/api/experimental/chats/model-configs/${spare.id}`), 403);
    await json(await api(admin.token, 'DELETE', `/api/experimental/chats/model-configs/${spare.id}`), 204);
    await json(await api(admin.token, 'DELETE', `/api/experimental/chats/model-configs/${spare.id}`), 404);
    await json(await api(admin.token, 'DELETE', '/api/experimental/chats/model-configs/not-a-uuid'), 404);
    // Chats run with the first configuration: it stays.
    const inUse = await json(
      await api(admin.token, 'DELETE', `/api/experimental/chats/model-configs/${configId}`),
      409,
    );
    expect(inUse.message).toBe('Model config is in use by chats.');
  });

  // Last: the Coder JSON answers above against the OpenAPI response schemas (issue 33 acceptance).
  it('every recorded Coder response satisfies its OpenAPI response schema', async () => {
    const { failures, checked } = (await loadResponseSchemas(t.url!)).check(recorder.responses);
    expect(checked).toBeGreaterThan(20);
    expect(failures).toEqual([]);
  });
});
