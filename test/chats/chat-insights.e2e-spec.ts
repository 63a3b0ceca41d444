import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PullRequests } from '../../src/platform/ports/pull-requests';
import { ChatsService } from '../../src/modules/chats/chats.service';
import type { CreatedUser } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { cloneUrl, git, tempDir } from '../repositories/git-client';
import { coderClient, type Json } from '../workspaces/helpers';

const ROUTE = '/api/experimental/chats/insights/pull-requests';
const PERIOD = 'start_date=2026-01-10T00:00:00Z&end_date=2026-01-20T00:00:00Z';

/**
 * PR insights (issue 19.7) over a seeded period: real pull requests of the repositories module,
 * linked to chats at chosen times, with the chats' costs; the previous period is the same length
 * before the start.
 */
describe('chat PR insights', () => {
  let t: TestApp;
  let admin: CreatedUser;
  let alice: CreatedUser;
  let c1: string;
  let c2: string;
  let c3: string;
  const client = coderClient(() => t.url!);
  const { api, json } = client;

  beforeAll(async () => {
    t = await createTestApp({
      env: {
        EXPERIMENTS: 'agents',
        CHAT_RUNNER_ENABLED: 'false',
        AI_GATEWAY_PROVIDERS: JSON.stringify([
          { name: 'openai-main', type: 'openai', base_url: 'http://127.0.0.1:9/v1', key: 'sk-x' },
        ]),
      },
    });
    await t.listen();
    admin = await t.factories.admin({ username: 'insightadmin' });
    alice = await t.factories.user({ username: 'insightalice' });
    const config = async (model: string, displayName: string) =>
      (
        await json(
          await api(admin.token, 'POST', '/api/experimental/chats/model-configs', {
            provider: 'openai-main',
            model,
            display_name: displayName,
            input_price_per_million_tokens: '1',
          }),
          201,
        )
      ).id as string;
    const modelA = await config('model-a', 'Model A');
    const modelB = await config('model-b', 'Model B');

    // A repository with four branches of real changes, pushed with the git client.
    const created = await fetch(`${t.url}/api/v1/user/repos`, {
      method: 'POST',
      headers: { Authorization: `token ${alice.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'site', auto_init: true, default_branch: 'main' }),
    });
    expect(created.status).toBe(201);
    const work = await tempDir();
    const url = cloneUrl(t.url!, 'insightalice', 'site', { user: 'insightalice', secret: alice.token });
    expect((await git(['clone', '-q', url, 'site'], work)).code).toBe(0);
    const dir = path.join(work, 'site');
    for (const [branch, lines] of [
      ['one', 2],
      ['two', 3],
      ['three', 4],
      ['four', 5],
    ] as const) {
      await git(['checkout', '-q', '-b', branch, 'main'], dir);
      await writeFile(path.join(dir, `${branch}.txt`), 'x\n'.repeat(lines));
      await git(['add', '.'], dir);
      await git(['commit', '-q', '-m', branch], dir);
      expect((await git(['push', '-q', 'origin', branch], dir)).code).toBe(0);
    }
    const pulls = t.app.get(PullRequests);
    const open = (branch: string) =>
      pulls.open(alice.user.id, {
        repository: 'insightalice/site',
        head: branch,
        base: 'main',
        title: branch,
      });
    const [pr1, pr2, pr3, pr4] = [
      await open('one'),
      await open('two'),
      await open('three'),
      await open('four'),
    ];

    // Chats with their costs (input tokens × $1 per million = micros).
    const chats = t.app.get(ChatsService);
    const chat = async (modelConfigId: string, inputTokens: number) => {
      const created = await json(
        await api(alice.token, 'POST', '/api/experimental/chats', {
          model_config_id: modelConfigId,
          content: [{ type: 'text', text: 'work' }],
        }),
        201,
      );
      await t.dataSource.transaction((manager) =>
        chats.recordAssistantMessage(manager, created, {
          content: [{ type: 'text', text: 'ok' }],
          modelConfigId,
          usage: { input: inputTokens, output: 0, reasoning: 0, cacheRead: 0, cacheWrite: 0 },
          runtimeMs: 1,
        }),
      );
      return created.id as string;
    };
    c1 = await chat(modelA, 3000);
    c2 = await chat(modelB, 1001);
    c3 = await chat(modelA, 500);
    const link = (chatId: string, modelConfigId: string, pull: typeof pr1, createdAt: string) =>
      t.dataSource.query(
        `INSERT INTO chat_pull_requests (chat_id, owner_id, model_config_id, issue_id, repository_id, number, title, html_url, base_branch, created_at)
         VALUES ($1, (SELECT owner_id FROM chats WHERE id = $1), $2, $3, $4, $5, $6, $7, 'main', $8)`,
        [
          chatId,
          modelConfigId,
          pull.issueId,
          pull.repositoryId,
          pull.number,
          pull.title,
          pull.htmlUrl,
          createdAt,
        ],
      );
    await link(c1, modelA, pr1!, '2026-01-12T09:00:00Z');
    await link(c1, modelA, pr2!, '2026-01-13T09:00:00Z');
    await link(c2, modelB, pr3!, '2026-01-15T09:00:00Z');
    await link(c3, modelA, pr4!, '2026-01-05T09:00:00Z');
    // PR 1 and PR 4 merged, PR 3 closed, through the API; their dates moved into the seeded period.
    for (const index of [1, 4]) {
      const merged = await fetch(`${t.url}/api/v1/repos/insightalice/site/pulls/${index}/merge`, {
        method: 'POST',
        headers: { Authorization: `token ${alice.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ Do: 'merge' }),
      });
      expect(merged.status).toBe(200);
    }
    const closed = await fetch(`${t.url}/api/v1/repos/insightalice/site/pulls/3`, {
      method: 'PATCH',
      headers: { Authorization: `token ${alice.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ state: 'closed' }),
    });
    expect(closed.status).toBe(201);
    await t.dataSource.query(
      `UPDATE pull_requests SET merged_at = '2026-01-14T10:00:00Z' WHERE issue_id = $1`,
      [pr1!.issueId],
    );
    await t.dataSource.query(`UPDATE issues SET closed_at = '2026-01-16T10:00:00Z' WHERE id = $1`, [
      pr3!.issueId,
    ]);
  });
  afterAll(async () => t?.close());

  it('summarizes the period and the one before it, by day, by model, with the recent pull requests', async () => {
    const insights = await json(await api(admin.token, 'GET', `${ROUTE}?${PERIOD}`), 200);
    expect(insights.summary).toEqual({
      total_prs_created: 3,
      total_prs_merged: 1,
      merge_rate: 1 / 3,
      total_additions: 2 + 3 + 4,
      total_deletions: 0,
      // Chat 1's 3,000 micros split over its two pull requests, chat 2's 1,001 on its one.
      total_cost_micros: 4001,
      cost_per_merged_pr_micros: 4001,
      approval_rate: 0,
      prev_total_prs_created: 1,
      prev_total_prs_merged: 1,
      prev_merge_rate: 1,
      prev_cost_per_merged_pr_micros: 500,
    });
    expect(insights.time_series).toHaveLength(10);
    const day = (date: string) =>
      insights.time_series.find((point: Json) => point.date === `${date}T00:00:00Z`);
    expect(day('2026-01-10')).toEqual({
      date: '2026-01-10T00:00:00Z',
      prs_created: 0,
      prs_merged: 0,
      prs_closed: 0,
    });
    expect(day('2026-01-12')).toMatchObject({ prs_created: 1, prs_merged: 0 });
    expect(day('2026-01-14')).toMatchObject({ prs_created: 0, prs_merged: 1 });
    expect(day('2026-01-16')).toMatchObject({ prs_closed: 1 });
    expect(insights.by_model).toEqual([
      expect.objectContaining({
        display_name: 'Model A',
        provider: 'openai-main',
        total_prs: 2,
        merged_prs: 1,
        merge_rate: 0.5,
        total_additions: 5,
        total_cost_micros: 3000,
        cost_per_merged_pr_micros: 3000,
      }),
      expect.objectContaining({
        display_name: 'Model B',
        total_prs: 1,
        merged_prs: 0,
        merge_rate: 0,
        total_cost_micros: 1001,
        cost_per_merged_pr_micros: 0,
      }),
    ]);
    expect(insights.recent_prs.map((pull: Json) => [pull.pr_title, pull.state])).toEqual([
      ['three', 'closed'],
      ['two', 'open'],
      ['one', 'merged'],
    ]);
    expect(insights.recent_prs[2]).toMatchObject({
      pr_number: 1,
      additions: 2,
      deletions: 0,
      changed_files: 1,
      commits: 1,
      base_branch: 'main',
      author_login: 'insightalice',
      model_display_name: 'Model A',
      cost_micros: 1500,
      approved: false,
    });
  });

  it('an empty period has zero counts and zero rates', async () => {
    const insights = await json(
      await api(admin.token, 'GET', `${ROUTE}?start_date=2025-06-01T00:00:00Z&end_date=2025-06-03T00:00:00Z`),
      200,
    );
    expect(insights.summary).toMatchObject({
      total_prs_created: 0,
      merge_rate: 0,
      cost_per_merged_pr_micros: 0,
      prev_merge_rate: 0,
    });
    expect(insights.time_series).toHaveLength(2);
    expect(insights.by_model).toEqual([]);
    expect(insights.recent_prs).toEqual([]);
  });

  it('administrators only: none 401, a member 403, a narrow token 403; bad dates 400', async () => {
    expect((await fetch(`${t.url}${ROUTE}`)).status).toBe(401);
    await json(await api(alice.token, 'GET', ROUTE), 403);
    const narrow = await t.factories.token(admin.user, { scopes: ['workspace:read'] });
    await json(await api(narrow, 'GET', ROUTE), 403);
    const bad = await json(await api(admin.token, 'GET', `${ROUTE}?start_date=yesterday`), 400);
    expect(bad.message).toBe('Query parameters have invalid values.');
    await json(
      await api(admin.token, 'GET', `${ROUTE}?start_date=2026-01-20T00:00:00Z&end_date=2026-01-10T00:00:00Z`),
      400,
    );
  });

  it("lists a user's chats by the pull requests they opened (pr_status, pr, repo, pr_title of D.4)", async () => {
    const ids = async (q: string) =>
      (await json(await api(alice.token, 'GET', `/api/experimental/chats?q=${encodeURIComponent(q)}`), 200))
        .map((chat: Json) => chat.id as string)
        .sort();
    expect(await ids('pr_status:merged')).toEqual([c1, c3].sort());
    expect(await ids('pr_status:closed')).toEqual([c2]);
    expect(await ids('pr_status:open')).toEqual([c1]);
    expect(await ids('pr_status:draft')).toEqual([]);
    expect(await ids('pr:3')).toEqual([c2]);
    expect(await ids('pr:"http://localhost:3000/insightalice/site/pulls/4"')).toEqual([c3]);
    expect(await ids('repo:insightalice/site pr_title:two')).toEqual([c1]);
    expect(await ids('repo:someone/else')).toEqual([]);
    expect(await ids('')).toHaveLength(3);
    const bad = await json(await api(alice.token, 'GET', '/api/experimental/chats?q=pr_status:bogus'), 400);
    expect(bad.message).toBe('Invalid chat search query.');
    // Another user's pull requests are not theirs to search.
    expect(
      await json(await api(admin.token, 'GET', '/api/experimental/chats?q=pr_status:merged'), 200),
    ).toEqual([]);
  });
});
