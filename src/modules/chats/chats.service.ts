import { Injectable, Optional } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { TransactionRunner } from '../../platform/database/transaction-runner.service';
import { ClusterBus } from '../../platform/events/cluster-bus.service';
import { CHATS_PENDING_TOPIC } from './events';
import {
  BadRequestError,
  ConflictError,
  ForbiddenError,
  InvalidError,
  NotFoundError,
} from '../../platform/errors/domain-error';
import { resultRows } from '../../platform/database/result-rows';
import { AiProviderDirectory } from '../../platform/ports/ai-provider-directory';
import { PullRequests } from '../../platform/ports/pull-requests';
import { WorkspaceLookup, workspaceRbacObject } from '../../platform/ports/workspace-lookup';
import { AuthorizationService, type AuthzObject } from '../auth/authorization.service';
import type { Principal } from '../auth/principal';
import { OrganizationsService } from '../identity/organizations.service';
import { costMicros, type ModelPrices, parseDollars } from './chat-cost';
import type { Chat } from './entities/chat.entity';
import type { ChatModelConfig } from './entities/chat-model-config.entity';
import { isUuid } from '../../platform/text/uuid';

export const NOT_FOUND = 'Resource not found or you do not have access to this resource';
const DEFAULT_ORGANIZATION = 'default';

export interface InputPart {
  type: 'text' | 'file' | 'file-reference';
  text?: string;
  file_id?: string;
}

export const PR_STATUSES = ['draft', 'open', 'merged', 'closed'] as const;

export type PriceKind = 'input' | 'output' | 'cache_read' | 'cache_write';

/** A price in dollars per million tokens as micro-dollars; absent or empty = not priced; else 400. */
function priceMicros(kind: PriceKind, raw: string | null | undefined): string | null {
  if (raw === undefined || raw === null || raw === '') return null;
  const parsed = parseDollars(raw);
  if (parsed === null)
    throw new InvalidError('Validation failed.', {
      fields: [
        {
          field: `${kind}_price_per_million_tokens`,
          detail: 'a decimal number of dollars with at most 6 decimals',
        },
      ],
    });
  return parsed.toString();
}

/** Subagent chats one chat tree may spawn (a model that spawns in a loop stops here). */
export const MAX_SUBAGENTS = 16;

export interface ChatFilters {
  archived?: boolean;
  title?: string;
  search?: string;
  /** Chats that opened a pull request matching every given term (its live state from the repositories module). */
  pullRequest?: {
    status: (typeof PR_STATUSES)[number][];
    title?: string;
    /** `owner/name`, or a URL that ends with it. */
    repository?: string;
    /** The pull request's number or its URL. */
    pull?: string;
  };
  labels: Record<string, string>;
}

export interface MessageRow {
  id: string;
  chat_id: string;
  role: string;
  content: Record<string, unknown>[];
  model_config_id: string | null;
  input_tokens: string;
  output_tokens: string;
  reasoning_tokens: string;
  cache_read_tokens: string;
  cache_write_tokens: string;
  total_cost_micros: string | null;
  runtime_ms: number;
  created_at: Date;
}

export function chatObject(chat: Pick<Chat, 'id' | 'ownerId' | 'organizationId'>): AuthzObject {
  return { type: 'chat', id: chat.id, ownerId: chat.ownerId, orgId: chat.organizationId };
}

export function pricesOf(config: ChatModelConfig | null | undefined): ModelPrices | null {
  if (!config) return null;
  const big = (value: string | null) => (value === null ? null : BigInt(value));
  return {
    input: big(config.inputPriceMicros),
    output: big(config.outputPriceMicros),
    cacheRead: big(config.cacheReadPriceMicros),
    cacheWrite: big(config.cacheWritePriceMicros),
  };
}

/**
 * Chats (spec 2, reference D.4): model configurations, chats and their messages, archive (the chat and
 * its descendants, one transaction) and unarchive (that chat only), costs. What a caller may not read
 * is 404; a change without update permission is 403.
 */
@Injectable()
export class ChatsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly transactions: TransactionRunner,
    private readonly authz: AuthorizationService,
    private readonly organizations: OrganizationsService,
    private readonly cluster: ClusterBus,
    @Optional() private readonly workspaces?: WorkspaceLookup,
    @Optional() private readonly pullRequests?: PullRequests,
    @Optional() private readonly providers?: AiProviderDirectory,
  ) {}

  // ---------------------------------------------------------------- model configurations

  async modelConfigs(): Promise<ChatModelConfig[]> {
    const rows = (await this.dataSource.query(
      'SELECT * FROM chat_model_configs ORDER BY display_name, id',
    )) as Record<string, unknown>[];
    return rows.map(modelConfigFromRow);
  }

  async modelConfig(
    id: string,
    manager: EntityManager | DataSource = this.dataSource,
  ): Promise<ChatModelConfig | null> {
    if (!isUuid(id)) return null;
    const [row] = (await manager.query('SELECT * FROM chat_model_configs WHERE id = $1', [id])) as Record<
      string,
      unknown
    >[];
    return row ? modelConfigFromRow(row) : null;
  }

  async createModelConfig(input: {
    provider: string;
    model: string;
    displayName?: string;
    prices: Partial<Record<PriceKind, string | null>>;
  }): Promise<ChatModelConfig> {
    const micros: Record<PriceKind, string | null> = {
      input: priceMicros('input', input.prices.input),
      output: priceMicros('output', input.prices.output),
      cache_read: priceMicros('cache_read', input.prices.cache_read),
      cache_write: priceMicros('cache_write', input.prices.cache_write),
    };
    await this.requireProvider(input.provider);
    const [row] = (await this.dataSource.query(
      `INSERT INTO chat_model_configs (provider, model, display_name, input_price_micros, output_price_micros,
         cache_read_price_micros, cache_write_price_micros) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
      [
        input.provider,
        input.model,
        input.displayName || input.model,
        micros.input,
        micros.output,
        micros.cache_read,
        micros.cache_write,
      ],
    )) as Record<string, unknown>[];
    return modelConfigFromRow(row!);
  }

  private async requireProvider(provider: string): Promise<void> {
    if (!(await this.providers?.exists(provider)))
      throw new InvalidError('Validation failed.', {
        fields: [{ field: 'provider', detail: `no AI gateway provider named "${provider}"` }],
      });
  }

  /** Changes what is given; a price of `""` stops pricing that kind. Costs already recorded stay. */
  async updateModelConfig(
    id: string,
    input: {
      provider?: string;
      model?: string;
      displayName?: string;
      prices: Partial<Record<PriceKind, string>>;
    },
  ): Promise<ChatModelConfig> {
    const current = await this.modelConfig(id);
    if (!current) throw new NotFoundError(NOT_FOUND);
    if (input.provider !== undefined && input.provider !== current.provider)
      await this.requireProvider(input.provider);
    const price = (kind: PriceKind, now: string | null): string | null =>
      input.prices[kind] === undefined ? now : priceMicros(kind, input.prices[kind]);
    const [row] = resultRows<Record<string, unknown>>(
      await this.dataSource.query(
        `UPDATE chat_model_configs SET provider = $2, model = $3, display_name = $4, input_price_micros = $5,
         output_price_micros = $6, cache_read_price_micros = $7, cache_write_price_micros = $8, updated_at = now()
       WHERE id = $1 RETURNING *`,
        [
          current.id,
          input.provider || current.provider,
          input.model || current.model,
          input.displayName || current.displayName,
          price('input', current.inputPriceMicros),
          price('output', current.outputPriceMicros),
          price('cache_read', current.cacheReadPriceMicros),
          price('cache_write', current.cacheWritePriceMicros),
        ],
      ),
    );
    if (!row) throw new NotFoundError(NOT_FOUND);
    return modelConfigFromRow(row);
  }

  /** Deletes an unused configuration; one a chat still runs with is 409. */
  async deleteModelConfig(id: string): Promise<void> {
    if (!isUuid(id)) throw new NotFoundError(NOT_FOUND);
    await this.transactions.run(async (tx) => {
      const [used] = (await tx.manager.query('SELECT 1 FROM chats WHERE last_model_config_id = $1 LIMIT 1', [
        id,
      ])) as unknown[];
      if (used) throw new ConflictError('Model config is in use by chats.');
      const deleted = resultRows(
        await tx.manager.query('DELETE FROM chat_model_configs WHERE id = $1 RETURNING id', [id]),
      );
      if (deleted.length === 0) throw new NotFoundError(NOT_FOUND);
    });
  }

  // ---------------------------------------------------------------- chats

  /** A chat the caller may read, else 404. */
  async requireChat(principal: Principal, id: string): Promise<Chat> {
    if (!isUuid(id)) throw new NotFoundError(NOT_FOUND);
    const [row] = (await this.dataSource.query('SELECT * FROM chats WHERE id = $1', [id])) as Record<
      string,
      unknown
    >[];
    if (!row) throw new NotFoundError(NOT_FOUND);
    const chat = chatFromRow(row);
    await this.authz.require(principal, 'read', chatObject(chat), { notFound: true });
    return chat;
  }

  private async organizationId(principal: Principal, ref: string | undefined): Promise<string> {
    const memberships = await this.organizations.membershipsOf(principal.user.id);
    const found = ref
      ? memberships.find((membership) => membership.organizationUuid === ref.toLowerCase())
      : (memberships.find((membership) => membership.organizationName === DEFAULT_ORGANIZATION) ??
        memberships[0]);
    if (!found)
      throw new BadRequestError('Invalid organization.', {
        fields: [{ field: 'organization_id', detail: 'not an organization of yours' }],
      });
    return found.organizationUuid;
  }

  async createChat(
    principal: Principal,
    input: {
      organizationId?: string;
      workspaceId?: string;
      modelConfigId: string;
      content: InputPart[];
      parentChatId?: string;
      labels?: Record<string, string>;
      clientType?: string;
    },
  ): Promise<Chat> {
    const organizationId = await this.organizationId(principal, input.organizationId);
    await this.authz.require(principal, 'create', {
      type: 'chat',
      ownerId: principal.user.uuid,
      orgId: organizationId,
    });
    const text = this.checkContent(input.content);
    if (!(await this.modelConfig(input.modelConfigId)))
      throw new BadRequestError('Invalid model config.', {
        fields: [{ field: 'model_config_id', detail: 'unknown model configuration' }],
      });
    if (input.workspaceId) await this.requireWorkspace(principal, input.workspaceId);
    let parent: Chat | undefined;
    if (input.parentChatId) {
      parent = await this.requireChat(principal, input.parentChatId);
      if (parent.ownerId !== principal.user.uuid) throw new ForbiddenError();
    }
    return this.transactions.run(async (tx) => {
      const [row] = (await tx.manager.query(
        `INSERT INTO chats (organization_id, owner_id, workspace_id, parent_chat_id, root_chat_id, last_model_config_id, title,
           status, labels, client_type)
         VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending', $8, $9) RETURNING *`,
        [
          organizationId,
          principal.user.uuid,
          input.workspaceId ?? parent?.workspaceId ?? null,
          parent?.id ?? null,
          parent ? (parent.rootChatId ?? parent.id) : null,
          input.modelConfigId,
          (text || 'New chat').slice(0, 200),
          JSON.stringify(input.labels ?? {}),
          input.clientType ?? 'api',
        ],
      )) as Record<string, unknown>[];
      const chat = chatFromRow(row!);
      await this.insertUserMessage(tx.manager, principal, chat, input.content);
      tx.afterCommit(() => this.announcePending());
      return chat;
    });
  }

  private checkContent(content: InputPart[]): string {
    if (!Array.isArray(content) || content.length === 0)
      throw new BadRequestError('Content is required.', {
        fields: [{ field: 'content', detail: 'at least one part' }],
      });
    const texts: string[] = [];
    for (const [index, part] of content.entries()) {
      if (part.type === 'text') {
        if (typeof part.text !== 'string' || part.text.trim() === '')
          throw new BadRequestError('Invalid input part.', {
            fields: [{ field: `content[${index}].text`, detail: 'text is required' }],
          });
        texts.push(part.text.trim());
      } else if (part.type === 'file' || part.type === 'file-reference') {
        if (typeof part.file_id !== 'string' || !isUuid(part.file_id))
          throw new BadRequestError('Invalid input part.', {
            fields: [{ field: `content[${index}].file_id`, detail: 'a file id is required' }],
          });
      } else {
        throw new BadRequestError('Invalid input part.', {
          fields: [{ field: `content[${index}].type`, detail: 'text, file or file-reference' }],
        });
      }
    }
    return texts.join(' ');
  }

  private async requireWorkspace(principal: Principal, id: string): Promise<void> {
    const workspace = isUuid(id) ? await this.workspaces?.find(id.toLowerCase()) : null;
    const object = workspace ? workspaceRbacObject(workspace) : null;
    if (!object || !(await this.authz.authorize(principal, 'read', object)))
      throw new BadRequestError('Workspace not found or you do not have access to this resource', {
        fields: [{ field: 'workspace_id', detail: 'unknown workspace' }],
      });
  }

  /** A user message: files it references must be the caller's (at most 50 per chat). */
  private async insertUserMessage(
    manager: EntityManager,
    principal: Principal,
    chat: Chat,
    content: InputPart[],
  ): Promise<MessageRow> {
    const fileIds = content.filter((part) => part.file_id).map((part) => part.file_id!.toLowerCase());
    if (fileIds.length) {
      const files = (await manager.query(
        'SELECT id FROM chat_files WHERE id = ANY($1::uuid[]) AND owner_id = $2',
        [fileIds, principal.user.uuid],
      )) as { id: string }[];
      if (files.length !== new Set(fileIds).size)
        throw new BadRequestError('File not found.', {
          fields: [{ field: 'content', detail: 'unknown file id' }],
        });
      const [count] = (await manager.query(
        `SELECT count(*)::int AS n FROM chat_files WHERE chat_id = $1 AND NOT (id = ANY($2::uuid[]))`,
        [chat.id, fileIds],
      )) as { n: number }[];
      if ((count?.n ?? 0) + fileIds.length > 50) throw new BadRequestError('Chat attachment limit reached.');
      await manager.query(
        'UPDATE chat_files SET chat_id = $1 WHERE id = ANY($2::uuid[]) AND chat_id IS NULL',
        [chat.id, fileIds],
      );
    }
    const [message] = (await manager.query(
      `INSERT INTO chat_messages (chat_id, role, content) VALUES ($1, 'user', $2) RETURNING *`,
      [chat.id, JSON.stringify(content)],
    )) as MessageRow[];
    return message!;
  }

  async postMessage(principal: Principal, chat: Chat, content: InputPart[]): Promise<MessageRow> {
    await this.requireUpdate(principal, chat);
    this.checkContent(content);
    if (chat.archived) throw new BadRequestError('Chat is archived.');
    return this.transactions.run(async (tx) => {
      const message = await this.insertUserMessage(tx.manager, principal, chat, content);
      await tx.manager.query(`UPDATE chats SET status = 'pending', updated_at = now() WHERE id = $1`, [
        chat.id,
      ]);
      tx.afterCommit(() => this.announcePending());
      return message;
    });
  }

  /**
   * A subagent chat spawned by a chat's model (the runner's `spawn_subagent` tool): a child of `parent`
   * with its owner, organization, workspace and model configuration, its first message the prompt;
   * queued for the runners like any new chat.
   */
  async spawnSubagent(parent: Chat, input: { prompt: string; title?: string }): Promise<Chat> {
    const prompt = input.prompt.trim();
    if (prompt === '') throw new BadRequestError('A subagent needs a prompt.');
    const root = parent.rootChatId ?? parent.id;
    return this.transactions.run(async (tx) => {
      // The root's row lock serializes spawns in one tree, so the limit holds under concurrent turns.
      await tx.manager.query('SELECT id FROM chats WHERE id = $1 FOR UPDATE', [root]);
      const [count] = (await tx.manager.query(
        'SELECT count(*)::int AS n FROM chats WHERE root_chat_id = $1',
        [root],
      )) as { n: number }[];
      if ((count?.n ?? 0) >= MAX_SUBAGENTS)
        throw new BadRequestError(
          `Subagent limit reached: a chat tree has at most ${MAX_SUBAGENTS} subagents.`,
        );
      const [row] = (await tx.manager.query(
        `INSERT INTO chats (organization_id, owner_id, workspace_id, parent_chat_id, root_chat_id, last_model_config_id, title,
           status, labels, client_type)
         VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending', '{}', 'api') RETURNING *`,
        [
          parent.organizationId,
          parent.ownerId,
          parent.workspaceId,
          parent.id,
          root,
          parent.lastModelConfigId,
          (input.title?.trim() || prompt).slice(0, 200),
        ],
      )) as Record<string, unknown>[];
      const chat = chatFromRow(row!);
      await tx.manager.query(`INSERT INTO chat_messages (chat_id, role, content) VALUES ($1, 'user', $2)`, [
        chat.id,
        JSON.stringify([{ type: 'text', text: prompt }]),
      ]);
      tx.afterCommit(() => this.announcePending());
      return chat;
    });
  }

  /** Wakes the chat runners of every instance. */
  private async announcePending(): Promise<void> {
    await this.cluster.publish(CHATS_PENDING_TOPIC, {}).catch(() => undefined);
  }

  /** An assistant (or tool) message with its usage; its cost comes from the model configuration's prices. */
  async recordAssistantMessage(
    manager: EntityManager,
    chat: Pick<Chat, 'id'>,
    input: {
      content: Record<string, unknown>[];
      modelConfigId: string;
      usage: { input: number; output: number; reasoning: number; cacheRead: number; cacheWrite: number };
      runtimeMs: number;
      role?: string;
    },
  ): Promise<MessageRow> {
    const config = await this.modelConfig(input.modelConfigId, manager);
    const cost = costMicros(
      {
        input: input.usage.input,
        output: input.usage.output,
        cacheRead: input.usage.cacheRead,
        cacheWrite: input.usage.cacheWrite,
      },
      pricesOf(config),
    );
    const [message] = (await manager.query(
      `INSERT INTO chat_messages (chat_id, role, content, model_config_id, input_tokens, output_tokens, reasoning_tokens,
         cache_read_tokens, cache_write_tokens, total_cost_micros, runtime_ms)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING *`,
      [
        chat.id,
        input.role ?? 'assistant',
        JSON.stringify(input.content),
        input.modelConfigId,
        input.usage.input,
        input.usage.output,
        input.usage.reasoning,
        input.usage.cacheRead,
        input.usage.cacheWrite,
        cost === null ? null : cost.toString(),
        input.runtimeMs,
      ],
    )) as MessageRow[];
    return message!;
  }

  /**
   * The workspace paths the chat and its ancestors touched (file tools' paths; `.` once a command ran):
   * what the git watch asks the agent to scan.
   */
  async touchedPaths(chat: Pick<Chat, 'id'>): Promise<string[]> {
    const rows = (await this.dataSource.query(
      `WITH RECURSIVE lineage AS (
         SELECT id, parent_chat_id FROM chats WHERE id = $1
         UNION ALL SELECT c.id, c.parent_chat_id FROM chats c JOIN lineage l ON c.id = l.parent_chat_id)
       SELECT part->>'name' AS name, part->>'arguments' AS arguments
         FROM chat_messages m CROSS JOIN LATERAL jsonb_array_elements(m.content) part
        WHERE m.chat_id IN (SELECT id FROM lineage) AND m.role = 'assistant' AND part->>'type' = 'tool-call'`,
      [chat.id],
    )) as { name: string; arguments: string | null }[];
    const paths = new Set<string>();
    for (const row of rows) {
      if (row.name === 'run_command') {
        paths.add('.');
        continue;
      }
      try {
        const args = JSON.parse(row.arguments ?? '{}') as { path?: unknown };
        if (typeof args.path === 'string' && args.path !== '') paths.add(args.path);
      } catch {
        // arguments that were not JSON touched nothing
      }
    }
    return [...paths].sort();
  }

  /** A tool's result, as the model will see it in the next call. */
  async recordToolResult(
    manager: EntityManager,
    chat: Pick<Chat, 'id'>,
    result: { tool_call_id: string; name: string; ok: boolean; output: string },
  ): Promise<void> {
    await manager.query(`INSERT INTO chat_messages (chat_id, role, content) VALUES ($1, 'tool', $2)`, [
      chat.id,
      JSON.stringify([{ type: 'tool-result', ...result }]),
    ]);
  }

  /** A page of a chat's messages, newest first, older than `beforeId`; `hasMore` when older ones remain. */
  async messagesPage(
    chat: Pick<Chat, 'id'>,
    page: { beforeId?: number; limit: number },
  ): Promise<{ messages: MessageRow[]; hasMore: boolean }> {
    const params: unknown[] = [chat.id, page.limit + 1];
    let where = 'chat_id = $1';
    if (page.beforeId !== undefined) {
      params.push(page.beforeId);
      where += ' AND id < $3';
    }
    const rows = (await this.dataSource.query(
      `SELECT * FROM chat_messages WHERE ${where} ORDER BY id DESC LIMIT $2`,
      params,
    )) as MessageRow[];
    return { messages: rows.slice(0, page.limit), hasMore: rows.length > page.limit };
  }

  async messages(chat: Pick<Chat, 'id'>): Promise<MessageRow[]> {
    return (await this.dataSource.query('SELECT * FROM chat_messages WHERE chat_id = $1 ORDER BY id', [
      chat.id,
    ])) as MessageRow[];
  }

  /** The caller's chats (Coder: own chats; archived ones only when asked). */
  async list(
    principal: Principal,
    filters: ChatFilters,
    page: { limit: number; offset: number },
  ): Promise<Chat[]> {
    const where = ['owner_id = $1', 'archived = $2'];
    const params: unknown[] = [principal.user.uuid, filters.archived ?? false];
    if (filters.title) {
      params.push(`%${filters.title.toLowerCase().replace(/[\\%_]/g, (c) => '\\' + c)}%`);
      where.push(`lower(title) LIKE $${params.length}`);
    }
    if (filters.search) {
      params.push(`%${filters.search.toLowerCase().replace(/[\\%_]/g, (c) => '\\' + c)}%`);
      where.push(
        `(lower(title) LIKE $${params.length} OR EXISTS (SELECT 1 FROM chat_messages m WHERE m.chat_id = chats.id AND lower(m.content::text) LIKE $${params.length}))`,
      );
    }
    for (const [key, value] of Object.entries(filters.labels)) {
      params.push(JSON.stringify({ [key]: value }));
      where.push(`labels @> $${params.length}::jsonb`);
    }
    const pr = filters.pullRequest;
    if (pr && (pr.status.length > 0 || pr.title || pr.repository || pr.pull)) {
      params.push(await this.chatsWithPullRequests(principal.user.uuid, pr));
      where.push(`id = ANY($${params.length}::uuid[])`);
    }
    const rows = (await this.dataSource.query(
      `SELECT * FROM chats WHERE ${where.join(' AND ')} ORDER BY pin_order DESC, updated_at DESC, id
        ${page.limit > 0 ? `LIMIT ${page.limit}` : ''} OFFSET ${page.offset}`,
      params,
    )) as Record<string, unknown>[];
    return rows.map(chatFromRow);
  }

  /** The owner's chats that opened a pull request matching the terms (live state through the PullRequests port). */
  private async chatsWithPullRequests(
    ownerId: string,
    terms: NonNullable<ChatFilters['pullRequest']>,
  ): Promise<string[]> {
    const links = (await this.dataSource.query(
      `SELECT chat_id, issue_id::text AS issue_id, number, title, html_url FROM chat_pull_requests WHERE owner_id = $1`,
      [ownerId],
    )) as { chat_id: string; issue_id: string; number: number; title: string; html_url: string }[];
    if (links.length === 0) return [];
    const facts = (await this.pullRequests?.describe(links.map((link) => link.issue_id))) ?? new Map();
    const wanted = (terms.repository ?? '').toLowerCase().replace(/\/+$/, '');
    const chats = new Set<string>();
    for (const link of links) {
      const pull = facts.get(link.issue_id);
      const state = pull?.state ?? 'closed';
      const url = (pull?.htmlUrl ?? link.html_url).toLowerCase();
      if (terms.status.length > 0 && !terms.status.some((status) => status === state)) continue;
      if (terms.title && !(pull?.title ?? link.title).toLowerCase().includes(terms.title.toLowerCase()))
        continue;
      if (wanted) {
        const repository = (pull?.repository ?? '').toLowerCase();
        if (repository !== wanted && !wanted.endsWith(`/${repository}`)) continue;
      }
      if (terms.pull && terms.pull !== String(link.number) && terms.pull.toLowerCase() !== url) continue;
      chats.add(link.chat_id);
    }
    return [...chats];
  }

  async requireUpdate(principal: Principal, chat: Chat): Promise<void> {
    await this.authz.require(principal, 'update', chatObject(chat));
  }

  /** Archives the chat and every descendant in one transaction (spec 2); no event is published. */
  async archive(principal: Principal, chat: Chat): Promise<void> {
    await this.requireUpdate(principal, chat);
    await this.transactions.run(async (tx) => {
      await tx.manager.query(
        `WITH RECURSIVE family AS (
           SELECT id FROM chats WHERE id = $1
           UNION ALL SELECT c.id FROM chats c JOIN family f ON c.parent_chat_id = f.id)
         UPDATE chats SET archived = true, archived_at = now(), pin_order = 0, updated_at = now()
          WHERE id IN (SELECT id FROM family) AND archived = false`,
        [chat.id],
      );
    });
  }

  /** Unarchives that chat only. */
  async unarchive(principal: Principal, chat: Chat): Promise<void> {
    await this.requireUpdate(principal, chat);
    await this.dataSource.query(
      `UPDATE chats SET archived = false, archived_at = NULL, updated_at = now() WHERE id = $1`,
      [chat.id],
    );
  }

  // ---------------------------------------------------------------- cost

  /** The cost of a chat's whole tree (root and subagents). */
  async chatCost(chat: Chat): Promise<{ total: bigint; requests: number; unpriced: number }> {
    const root = chat.rootChatId ?? chat.id;
    const [row] = (await this.dataSource.query(
      `SELECT COALESCE(sum(m.total_cost_micros), 0)::text AS total, count(*)::int AS requests,
              count(*) FILTER (WHERE m.total_cost_micros IS NULL)::int AS unpriced
         FROM chat_messages m JOIN chats c ON c.id = m.chat_id
        WHERE (c.id = $1 OR c.root_chat_id = $1) AND m.role = 'assistant'`,
      [root],
    )) as { total: string; requests: number; unpriced: number }[];
    return { total: BigInt(row?.total ?? '0'), requests: row?.requests ?? 0, unpriced: row?.unpriced ?? 0 };
  }

  /** A user's cost summary over [start, end): totals, by model, by root chat. */
  async costSummary(ownerId: string, start: Date, end: Date) {
    const params = [ownerId, start, end];
    const base = `FROM chat_messages m JOIN chats c ON c.id = m.chat_id
       WHERE c.owner_id = $1 AND m.role = 'assistant' AND m.created_at >= $2 AND m.created_at < $3`;
    const sums = `COALESCE(sum(m.total_cost_micros), 0)::text AS total_cost_micros,
       count(*) FILTER (WHERE m.total_cost_micros IS NOT NULL)::int AS priced_message_count,
       count(*) FILTER (WHERE m.total_cost_micros IS NULL)::int AS unpriced_message_count,
       COALESCE(sum(m.input_tokens), 0)::text AS total_input_tokens, COALESCE(sum(m.output_tokens), 0)::text AS total_output_tokens,
       COALESCE(sum(m.cache_read_tokens), 0)::text AS total_cache_read_tokens,
       COALESCE(sum(m.cache_write_tokens), 0)::text AS total_cache_creation_tokens,
       COALESCE(sum(m.runtime_ms), 0)::text AS total_runtime_ms`;
    const [total] = (await this.dataSource.query(`SELECT ${sums} ${base}`, params)) as Record<
      string,
      string | number
    >[];
    const byModel = (await this.dataSource.query(
      `SELECT m.model_config_id, mc.display_name, mc.provider, mc.model, count(*)::int AS message_count, ${sums} ${base.replace(
        'FROM chat_messages m JOIN chats c ON c.id = m.chat_id',
        'FROM chat_messages m JOIN chats c ON c.id = m.chat_id LEFT JOIN chat_model_configs mc ON mc.id = m.model_config_id',
      )} GROUP BY m.model_config_id, mc.display_name, mc.provider, mc.model ORDER BY sum(m.total_cost_micros) DESC NULLS LAST`,
      params,
    )) as Record<string, string | number | null>[];
    const byChat = (await this.dataSource.query(
      `SELECT grouped.*, (SELECT title FROM chats r WHERE r.id = grouped.root_chat_id) AS chat_title
         FROM (SELECT COALESCE(c.root_chat_id, c.id) AS root_chat_id, count(*)::int AS message_count, ${sums} ${base}
                GROUP BY COALESCE(c.root_chat_id, c.id)) grouped
        ORDER BY grouped.total_cost_micros::numeric DESC`,
      params,
    )) as Record<string, string | number | null>[];
    return { total: total!, byModel, byChat };
  }

  /** Every user's chat cost over [start, end), for administrators, paged. */
  async costByUser(
    start: Date,
    end: Date,
    username: string | undefined,
    page: { limit: number; offset: number },
  ) {
    const params: unknown[] = [start, end];
    let filter = '';
    if (username) {
      params.push(username.toLowerCase());
      filter = `AND u.lower_name = $${params.length}`;
    }
    const rows = (await this.dataSource.query(
      `SELECT u.uuid AS user_id, u.name AS username, u.full_name AS name, u.avatar_url,
              COALESCE(sum(m.total_cost_micros), 0)::text AS total_cost_micros, count(*)::int AS message_count,
              count(DISTINCT COALESCE(c.root_chat_id, c.id))::int AS chat_count,
              COALESCE(sum(m.input_tokens), 0)::text AS total_input_tokens, COALESCE(sum(m.output_tokens), 0)::text AS total_output_tokens,
              COALESCE(sum(m.cache_read_tokens), 0)::text AS total_cache_read_tokens,
              COALESCE(sum(m.cache_write_tokens), 0)::text AS total_cache_creation_tokens,
              COALESCE(sum(m.runtime_ms), 0)::text AS total_runtime_ms, count(*) OVER ()::int AS full_count
         FROM chat_messages m JOIN chats c ON c.id = m.chat_id JOIN users u ON u.uuid = c.owner_id
        WHERE m.role = 'assistant' AND m.created_at >= $1 AND m.created_at < $2 ${filter}
        GROUP BY u.uuid, u.name, u.full_name, u.avatar_url
        ORDER BY sum(m.total_cost_micros) DESC NULLS LAST, u.name
        LIMIT ${page.limit || 10} OFFSET ${page.offset}`,
      params,
    )) as Record<string, string | number>[];
    return { rows, count: Number(rows[0]?.full_count ?? 0) };
  }
}

export function chatFromRow(row: Record<string, unknown>): Chat {
  return {
    id: row.id as string,
    organizationId: row.organization_id as string,
    ownerId: row.owner_id as string,
    workspaceId: row.workspace_id as string | null,
    parentChatId: row.parent_chat_id as string | null,
    rootChatId: row.root_chat_id as string | null,
    lastModelConfigId: row.last_model_config_id as string,
    title: row.title as string,
    status: row.status as Chat['status'],
    archived: row.archived as boolean,
    archivedAt: row.archived_at as Date | null,
    pinOrder: row.pin_order as number,
    labels: row.labels as Record<string, string>,
    clientType: row.client_type as string,
    runnerId: (row.runner_id as string | null) ?? null,
    leasedUntil: (row.leased_until as Date | null) ?? null,
    lastError: (row.last_error as string | null) ?? null,
    createdAt: row.created_at as Date,
    updatedAt: row.updated_at as Date,
  };
}

export function modelConfigFromRow(row: Record<string, unknown>): ChatModelConfig {
  return {
    id: row.id as string,
    provider: row.provider as string,
    model: row.model as string,
    displayName: row.display_name as string,
    inputPriceMicros: row.input_price_micros as string | null,
    outputPriceMicros: row.output_price_micros as string | null,
    cacheReadPriceMicros: row.cache_read_price_micros as string | null,
    cacheWritePriceMicros: row.cache_write_price_micros as string | null,
    createdAt: row.created_at as Date,
    updatedAt: row.updated_at as Date,
  };
}
