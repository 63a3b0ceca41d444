import { Injectable, Optional } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
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
import { AiProviderDirectory } from '../../platform/ports/ai-provider-directory';
import { PullRequests } from '../../platform/ports/pull-requests';
import { WorkspaceLookup, workspaceRbacObject } from '../../platform/ports/workspace-lookup';
import { AuthorizationService, type AuthzObject } from '../auth/authorization.service';
import type { Principal } from '../../api/access/principal';
import { OrganizationsService } from '../identity/organizations.service';
import { costMicros, type ModelPrices, parseDollars } from './chat-cost';
import type { Chat } from './entities/chat.entity';
import type { ChatMessage } from './entities/chat-message.entity';
import type { ChatModelConfig } from './entities/chat-model-config.entity';
import { isUuid } from '../../platform/text/uuid';
import { ChatCostsRepository } from './repositories/chat-costs.repository';
import { ChatFilesRepository } from './repositories/chat-files.repository';
import { ChatMessagesRepository } from './repositories/chat-messages.repository';
/** The chat runner's name for a `ChatMessage` (kept so its file need not change). */
export type { MessageRow } from './repositories/chat-messages.repository';
export type { CostSums } from './repositories/chat-costs.repository';
import { ChatModelConfigsRepository } from './repositories/chat-model-configs.repository';
import { IdentityDirectory } from '../identity/identity-directory.service';
import { ChatPullRequestsRepository } from './repositories/chat-pull-requests.repository';
import { ChatsRepository } from './repositories/chats.repository';

export { chatFromRow } from './repositories/chats.repository';
export { modelConfigFromRow } from './repositories/chat-model-configs.repository';

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
    private readonly chats: ChatsRepository,
    private readonly messageRows: ChatMessagesRepository,
    private readonly modelConfigRows: ChatModelConfigsRepository,
    private readonly fileRows: ChatFilesRepository,
    private readonly pullRequestLinks: ChatPullRequestsRepository,
    private readonly costs: ChatCostsRepository,
    private readonly directory: IdentityDirectory,
    private readonly transactions: TransactionRunner,
    private readonly authz: AuthorizationService,
    private readonly organizations: OrganizationsService,
    private readonly cluster: ClusterBus,
    @Optional() private readonly workspaces?: WorkspaceLookup,
    @Optional() private readonly pullRequests?: PullRequests,
    @Optional() private readonly providers?: AiProviderDirectory,
  ) {}

  // ---------------------------------------------------------------- model configurations

  modelConfigs(): Promise<ChatModelConfig[]> {
    return this.modelConfigRows.all();
  }

  async modelConfig(id: string, manager?: EntityManager): Promise<ChatModelConfig | null> {
    if (!isUuid(id)) return null;
    return this.modelConfigRows.findById(id, manager);
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
    return this.modelConfigRows.insert({
      provider: input.provider,
      model: input.model,
      displayName: input.displayName || input.model,
      inputPriceMicros: micros.input,
      outputPriceMicros: micros.output,
      cacheReadPriceMicros: micros.cache_read,
      cacheWritePriceMicros: micros.cache_write,
    });
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
    const updated = await this.modelConfigRows.update(current.id, {
      provider: input.provider || current.provider,
      model: input.model || current.model,
      displayName: input.displayName || current.displayName,
      inputPriceMicros: price('input', current.inputPriceMicros),
      outputPriceMicros: price('output', current.outputPriceMicros),
      cacheReadPriceMicros: price('cache_read', current.cacheReadPriceMicros),
      cacheWritePriceMicros: price('cache_write', current.cacheWritePriceMicros),
    });
    if (!updated) throw new NotFoundError(NOT_FOUND);
    return updated;
  }

  /** Deletes an unused configuration; one a chat still runs with is 409. */
  async deleteModelConfig(id: string): Promise<void> {
    if (!isUuid(id)) throw new NotFoundError(NOT_FOUND);
    await this.transactions.run(async (tx) => {
      if (await this.modelConfigRows.inUse(id, tx.manager))
        throw new ConflictError('Model config is in use by chats.');
      if (!(await this.modelConfigRows.delete(id, tx.manager))) throw new NotFoundError(NOT_FOUND);
    });
  }

  // ---------------------------------------------------------------- chats

  /** A chat the caller may read, else 404. */
  async requireChat(principal: Principal, id: string): Promise<Chat> {
    if (!isUuid(id)) throw new NotFoundError(NOT_FOUND);
    const chat = await this.chats.findById(id);
    if (!chat) throw new NotFoundError(NOT_FOUND);
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
      const chat = await this.chats.insert(
        {
          organizationId,
          ownerId: principal.user.uuid,
          workspaceId: input.workspaceId ?? parent?.workspaceId ?? null,
          parentChatId: parent?.id ?? null,
          rootChatId: parent ? (parent.rootChatId ?? parent.id) : null,
          modelConfigId: input.modelConfigId,
          title: (text || 'New chat').slice(0, 200),
          labels: JSON.stringify(input.labels ?? {}),
          clientType: input.clientType ?? 'api',
        },
        tx.manager,
      );
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
  ): Promise<ChatMessage> {
    const fileIds = content.filter((part) => part.file_id).map((part) => part.file_id!.toLowerCase());
    if (fileIds.length) {
      const files = await this.fileRows.ownedIds(fileIds, principal.user.uuid, manager);
      if (files.length !== new Set(fileIds).size)
        throw new BadRequestError('File not found.', {
          fields: [{ field: 'content', detail: 'unknown file id' }],
        });
      const attached = await this.fileRows.countAttachedExcept(chat.id, fileIds, manager);
      if (attached + fileIds.length > 50) throw new BadRequestError('Chat attachment limit reached.');
      await this.fileRows.attach(chat.id, fileIds, manager);
    }
    return this.messageRows.insertUser(chat.id, content, manager);
  }

  async postMessage(principal: Principal, chat: Chat, content: InputPart[]): Promise<ChatMessage> {
    await this.requireUpdate(principal, chat);
    this.checkContent(content);
    if (chat.archived) throw new BadRequestError('Chat is archived.');
    return this.transactions.run(async (tx) => {
      const message = await this.insertUserMessage(tx.manager, principal, chat, content);
      await this.chats.markPending(chat.id, tx.manager);
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
      await this.chats.lock(root, tx.manager);
      if ((await this.chats.countInTree(root, tx.manager)) >= MAX_SUBAGENTS)
        throw new BadRequestError(
          `Subagent limit reached: a chat tree has at most ${MAX_SUBAGENTS} subagents.`,
        );
      const chat = await this.chats.insert(
        {
          organizationId: parent.organizationId,
          ownerId: parent.ownerId,
          workspaceId: parent.workspaceId,
          parentChatId: parent.id,
          rootChatId: root,
          modelConfigId: parent.lastModelConfigId,
          title: (input.title?.trim() || prompt).slice(0, 200),
          labels: '{}',
          clientType: 'api',
        },
        tx.manager,
      );
      await this.messageRows.insertPrompt(chat.id, prompt, tx.manager);
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
  ): Promise<ChatMessage> {
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
    return this.messageRows.insertModelMessage(
      {
        chatId: chat.id,
        role: input.role ?? 'assistant',
        content: input.content,
        modelConfigId: input.modelConfigId,
        usage: input.usage,
        costMicros: cost === null ? null : cost.toString(),
        runtimeMs: input.runtimeMs,
      },
      manager,
    );
  }

  /**
   * The workspace paths the chat and its ancestors touched (file tools' paths; `.` once a command ran):
   * what the git watch asks the agent to scan.
   */
  async touchedPaths(chat: Pick<Chat, 'id'>): Promise<string[]> {
    return touchedPathsOf(await this.messageRows.lineageToolCalls(chat.id));
  }

  /** A tool's result, as the model will see it in the next call. */
  async recordToolResult(
    manager: EntityManager,
    chat: Pick<Chat, 'id'>,
    result: { tool_call_id: string; name: string; ok: boolean; output: string },
  ): Promise<void> {
    await this.messageRows.insertToolResult(chat.id, result, manager);
  }

  /** A page of a chat's messages, newest first, older than `beforeId`; `hasMore` when older ones remain. */
  async messagesPage(
    chat: Pick<Chat, 'id'>,
    page: { beforeId?: number; limit: number },
  ): Promise<{ messages: ChatMessage[]; hasMore: boolean }> {
    const rows = await this.messageRows.newestFirst(chat.id, page.limit + 1, page.beforeId);
    return { messages: rows.slice(0, page.limit), hasMore: rows.length > page.limit };
  }

  /** Up to `limit` messages newer than `afterId`, oldest first (the chat stream). */
  messagesAfter(chat: Pick<Chat, 'id'>, afterId: number, limit: number): Promise<ChatMessage[]> {
    return this.messageRows.after(chat.id, afterId, limit);
  }

  /** The chat as stored now, or null when it is gone (the chat stream re-reads its status). */
  chatById(id: string): Promise<Chat | null> {
    return this.chats.findById(id);
  }

  messages(chat: Pick<Chat, 'id'>): Promise<ChatMessage[]> {
    return this.messageRows.all(chat.id);
  }

  /**
   * Coder's `chats/by-workspace`: for each workspace, the id of the caller's latest (by update time)
   * non-archived chat in it; workspaces without one are left out.
   */
  async latestByWorkspace(principal: Principal, workspaceIds: string[]): Promise<Record<string, string>> {
    const wanted = new Set(workspaceIds.map((id) => id.toLowerCase()));
    const latest = new Map<string, Chat>();
    for (const chat of await this.chats.ofOwner(principal.user.uuid)) {
      if (chat.archived || !chat.workspaceId || !wanted.has(chat.workspaceId)) continue;
      const seen = latest.get(chat.workspaceId);
      if (!seen || new Date(chat.updatedAt) > new Date(seen.updatedAt)) latest.set(chat.workspaceId, chat);
    }
    return Object.fromEntries([...latest].map(([workspaceId, chat]) => [workspaceId, chat.id]));
  }

  /** The user-authored prompts of a chat, newest first, each its text parts joined (Coder's composer history). */
  async userPrompts(chat: Pick<Chat, 'id'>, limit: number): Promise<{ id: number; text: string }[]> {
    const rows = (await this.messageRows.all(chat.id)).filter((row) => row.role === 'user');
    return rows
      .map((row) => ({
        id: Number(row.id),
        text: row.content
          .filter((part) => part.type === 'text' && typeof part.text === 'string')
          .map((part) => part.text as string)
          .join(''),
      }))
      .filter((prompt) => prompt.text !== '')
      .sort((a, b) => b.id - a.id)
      .slice(0, limit);
  }

  /** The caller's chats (Coder: own chats; archived ones only when asked). */
  async list(
    principal: Principal,
    filters: ChatFilters,
    page: { limit: number; offset: number },
  ): Promise<Chat[]> {
    const pr = filters.pullRequest;
    const chatIds =
      pr && (pr.status.length > 0 || pr.title || pr.repository || pr.pull)
        ? await this.chatsWithPullRequests(principal.user.uuid, pr)
        : undefined;
    return this.chats.list(
      {
        ownerId: principal.user.uuid,
        archived: filters.archived ?? false,
        title: filters.title,
        search: filters.search,
        labels: filters.labels,
        chatIds,
      },
      page,
    );
  }

  /** The owner's chats that opened a pull request matching the terms (live state through the PullRequests port). */
  private async chatsWithPullRequests(
    ownerId: string,
    terms: NonNullable<ChatFilters['pullRequest']>,
  ): Promise<string[]> {
    const links = await this.pullRequestLinks.ofOwner(ownerId);
    if (links.length === 0) return [];
    const facts = (await this.pullRequests?.describe(links.map((link) => link.issueId))) ?? new Map();
    const wanted = (terms.repository ?? '').toLowerCase().replace(/\/+$/, '');
    const chats = new Set<string>();
    for (const link of links) {
      const pull = facts.get(link.issueId);
      const state = pull?.state ?? 'closed';
      const url = (pull?.htmlUrl ?? link.htmlUrl).toLowerCase();
      if (terms.status.length > 0 && !terms.status.some((status) => status === state)) continue;
      if (terms.title && !(pull?.title ?? link.title).toLowerCase().includes(terms.title.toLowerCase()))
        continue;
      if (wanted) {
        const repository = (pull?.repository ?? '').toLowerCase();
        if (repository !== wanted && !wanted.endsWith(`/${repository}`)) continue;
      }
      if (terms.pull && terms.pull !== String(link.number) && terms.pull.toLowerCase() !== url) continue;
      chats.add(link.chatId);
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
      await this.chats.archiveFamily(chat.id, tx.manager);
    });
  }

  /** Unarchives that chat only. */
  async unarchive(principal: Principal, chat: Chat): Promise<void> {
    await this.requireUpdate(principal, chat);
    await this.chats.unarchive(chat.id);
  }

  // ---------------------------------------------------------------- cost

  /** The cost of a chat's whole tree (root and subagents). */
  async chatCost(chat: Chat): Promise<{ total: bigint; requests: number; unpriced: number }> {
    const row = await this.costs.treeCost(chat.rootChatId ?? chat.id);
    return { total: BigInt(row?.total ?? '0'), requests: row?.requests ?? 0, unpriced: row?.unpriced ?? 0 };
  }

  /** A user's cost summary over [start, end): totals, by model, by root chat. */
  costSummary(ownerId: string, start: Date, end: Date) {
    return this.costs.summary(ownerId, start, end);
  }

  /** Every user's chat cost over [start, end), for administrators, paged. */
  async costByUser(
    start: Date,
    end: Date,
    username: string | undefined,
    page: { limit: number; offset: number },
  ) {
    let ownerUuids: string[] | undefined;
    if (username) {
      const ids = await this.directory.accountIdsByName(username);
      ownerUuids = [...(await this.directory.namesByIds(ids)).values()].map((account) => account.uuid);
    }
    const { owners: costs, count } = await this.costs.byOwner(start, end, ownerUuids, page);
    const owners = await this.directory.namesByUuids(costs.map((cost) => cost.ownerId));
    return {
      count,
      users: costs.map((cost) => {
        const owner = owners.get(cost.ownerId);
        return {
          ...cost,
          username: owner?.name ?? '',
          name: owner?.fullName ?? '',
          avatarUrl: owner?.avatarUrl ?? '',
        };
      }),
    };
  }

  /** Every chat of the owner (uuid), archived included (the chats watch). */
  chatsOfOwner(ownerUuid: string): Promise<Chat[]> {
    return this.chats.ofOwner(ownerUuid);
  }

  /** The chat owner's name and full name (the chat's presentation), or undefined when the account is gone. */
  async ownerNames(chat: Pick<Chat, 'ownerId'>): Promise<{ name: string; full_name: string } | undefined> {
    const owner = (await this.directory.namesByUuids([chat.ownerId])).get(chat.ownerId);
    return owner ? { name: owner.name, full_name: owner.fullName } : undefined;
  }

  /** The internal id of the chat's owner (chats keep the user's uuid), or null when the account is gone. */
  async ownerIdOf(chat: Pick<Chat, 'ownerId'>): Promise<string | null> {
    return (await this.directory.namesByUuids([chat.ownerId])).get(chat.ownerId)?.id ?? null;
  }
}

/**
 * The workspace paths tool calls touched: each file tool's `path`, and `.` (everything) once a
 * command ran; sorted, each once. Arguments that are not JSON touched nothing.
 */
export function touchedPathsOf(calls: { name: string; arguments: string | null }[]): string[] {
  const paths = new Set<string>();
  for (const call of calls) {
    if (call.name === 'run_command') {
      paths.add('.');
      continue;
    }
    try {
      const args = JSON.parse(call.arguments ?? '{}') as { path?: unknown };
      if (typeof args.path === 'string' && args.path !== '') paths.add(args.path);
    } catch {
      // arguments that were not JSON touched nothing
    }
  }
  return [...paths].sort();
}
