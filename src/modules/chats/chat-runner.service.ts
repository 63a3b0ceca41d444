import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  Optional,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { DataSource } from 'typeorm';
import type { AppConfig } from '../../platform/config/app-config';
import { APP_CONFIG } from '../../platform/config/config.token';
import { resultRows } from '../../platform/database/result-rows';
import { TransactionRunner } from '../../platform/database/transaction-runner.service';
import { ClusterBus } from '../../platform/events/cluster-bus.service';
import { AiProviderDirectory } from '../../platform/ports/ai-provider-directory';
import { PullRequests } from '../../platform/ports/pull-requests';
import {
  type AgentCallResult,
  type AgentTool,
  WorkspaceAgentCalls,
} from '../../platform/ports/workspace-agent-calls';
import { ApiTokensService } from '../identity/api-tokens.service';
import { AGENTS_EXPERIMENT } from './agents-experiment.guard';
import { ChatsService, chatFromRow, type MessageRow } from './chats.service';
import type { Chat } from './entities/chat.entity';
import { CHATS_PENDING_TOPIC, GIT_DIRTY_TOPIC } from './events';

const INT32_MAX = 2_147_483_647;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- provider JSON, read field by field
type Json = Record<string, any>;

/** `chat.acquireBatchSize` (CHAT_ACQUIRE_BATCH_SIZE): any integer, clamped to 1 … 2^31-1 (the spec's 32-bit range). */
export function acquireBatchSize(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === '') return 10;
  const value = Number(raw);
  if (!Number.isFinite(value)) return 10;
  return Math.min(INT32_MAX, Math.max(1, Math.trunc(value)));
}

interface OpenAiMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | null;
  tool_calls?: unknown[];
  tool_call_id?: string;
}

/** The chat is no longer this runner's. */
class LeaseLost extends Error {}

export const AGENT_TOOLS = ['read_file', 'write_file', 'list_directory', 'run_command'] as const;
/** Runs on the server (the repositories module, through the PullRequests port), not in the workspace. */
export const OPEN_PULL_REQUEST = 'open_pull_request';
/** Runs on the server: a child chat (subagent) of this one, queued for the runners. */
export const SPAWN_SUBAGENT = 'spawn_subagent';

/** The tools a chat with a workspace offers the model (OpenAI function tools). */
const TOOL_DEFINITIONS = [
  {
    type: 'function',
    function: {
      name: 'read_file',
      description: 'Read a file of the workspace (path relative to the workspace directory).',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    },
  },
  {
    type: 'function',
    function: {
      name: 'write_file',
      description: 'Write a file of the workspace, creating directories as needed.',
      parameters: {
        type: 'object',
        properties: { path: { type: 'string' }, content: { type: 'string' } },
        required: ['path', 'content'],
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'list_directory',
      description: 'List a directory of the workspace.',
      parameters: { type: 'object', properties: { path: { type: 'string' } } },
    },
  },
  {
    type: 'function',
    function: {
      name: 'run_command',
      description: 'Run a shell command in the workspace directory (sh -c) with a timeout.',
      parameters: {
        type: 'object',
        properties: { command: { type: 'string' }, timeout_ms: { type: 'integer' } },
        required: ['command'],
      },
    },
  },
  {
    type: 'function',
    function: {
      name: OPEN_PULL_REQUEST,
      description:
        'Open a pull request in a devplane repository from a branch already pushed to it (as the chat owner).',
      parameters: {
        type: 'object',
        properties: {
          repository: { type: 'string', description: 'owner/name of the base repository' },
          head: { type: 'string', description: 'the branch with the changes (or owner:branch for a fork)' },
          base: { type: 'string', description: 'the branch to merge into' },
          title: { type: 'string' },
          body: { type: 'string' },
        },
        required: ['repository', 'head', 'base', 'title'],
      },
    },
  },
  {
    type: 'function',
    function: {
      name: SPAWN_SUBAGENT,
      description:
        'Start a subagent: a child chat in the same workspace with the same model, working on the prompt on its own (it runs asynchronously; its id is returned).',
      parameters: {
        type: 'object',
        properties: { prompt: { type: 'string' }, title: { type: 'string' } },
        required: ['prompt'],
      },
    },
  },
];

/** The stored history as OpenAI chat messages (tool calls and their results included). */
export function toOpenAiMessages(history: MessageRow[]): OpenAiMessage[] {
  const out: OpenAiMessage[] = [];
  for (const message of history) {
    const parts = message.content ?? [];
    const text = parts
      .filter((part) => part.type === 'text' && typeof part.text === 'string')
      .map((part) => part.text as string)
      .join('\n');
    if (message.role === 'assistant') {
      const calls = parts.filter((part) => part.type === 'tool-call');
      out.push({
        role: 'assistant',
        content: text || null,
        ...(calls.length
          ? {
              tool_calls: calls.map((call) => ({
                id: call.tool_call_id,
                type: 'function',
                function: { name: call.name, arguments: call.arguments },
              })),
            }
          : {}),
      });
    } else if (message.role === 'tool') {
      for (const part of parts.filter((item) => item.type === 'tool-result'))
        out.push({
          role: 'tool',
          tool_call_id: String(part.tool_call_id),
          content: String(part.output ?? ''),
        });
    } else {
      out.push({ role: 'user', content: text });
    }
  }
  return out;
}

/**
 * The chat runner (issue 19.2): every instance acquires pending chats in batches of
 * CHAT_ACQUIRE_BATCH_SIZE with `FOR UPDATE SKIP LOCKED` (so instances share the work and no chat runs
 * twice), under a lease that a dead runner loses. A turn calls the chat's model through the AI
 * gateway's data plane on this server, as the chat's owner (a short-lived key), so the interception
 * and its token usage are recorded there; the answer is stored with its cost.
 */
@Injectable()
export class ChatRunnerService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ChatRunnerService.name);
  readonly runnerId = randomUUID();
  private readonly batchSize: number;
  private readonly enabled: boolean;
  private readonly leaseMs = 120_000;
  private readonly maxSteps: number;
  private stopped = false;
  private wake: (() => void) | undefined;
  private loop: Promise<void> | undefined;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly dataSource: DataSource,
    private readonly transactions: TransactionRunner,
    private readonly chats: ChatsService,
    private readonly tokens: ApiTokensService,
    private readonly cluster: ClusterBus,
    private readonly http: HttpAdapterHost,
    @Inject(APP_CONFIG) config: AppConfig,
    @Optional() private readonly providers?: AiProviderDirectory,
    @Optional() private readonly agentCalls?: WorkspaceAgentCalls,
    @Optional() private readonly pullRequests?: PullRequests,
  ) {
    this.maxSteps = Math.min(50, Math.max(1, Number.parseInt(config.env.CHAT_MAX_STEPS ?? '10', 10) || 10));
    this.batchSize = acquireBatchSize(config.env.CHAT_ACQUIRE_BATCH_SIZE);
    this.enabled =
      config.experiments.includes(AGENTS_EXPERIMENT) && config.env.CHAT_RUNNER_ENABLED !== 'false';
  }

  onApplicationBootstrap(): void {
    if (!this.enabled) return;
    this.unsubscribe = this.cluster.subscribe(CHATS_PENDING_TOPIC, () => this.wake?.());
    this.loop = this.run();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    this.wake?.();
    await this.loop;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      let batch: Chat[] = [];
      try {
        batch = await this.acquire();
        await Promise.all(batch.map((chat) => this.turn(chat)));
      } catch (error) {
        this.logger.warn({ err: error }, 'chat runner pass failed');
      }
      if (this.stopped) return;
      if (batch.length === this.batchSize) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 1_000);
        timer.unref();
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  /** Takes up to a batch of pending chats (and chats whose runner's lease expired). */
  async acquire(): Promise<Chat[]> {
    const rows = resultRows<Record<string, unknown>>(
      await this.dataSource.query(
        `UPDATE chats SET status = 'running', runner_id = $1, leased_until = now() + ($2::int * interval '1 millisecond'), updated_at = now()
        WHERE id IN (SELECT id FROM chats
                      WHERE (status = 'pending' OR (status = 'running' AND leased_until < now())) AND archived = false
                      ORDER BY updated_at LIMIT $3 FOR UPDATE SKIP LOCKED)
        RETURNING *`,
        [this.runnerId, this.leaseMs, this.batchSize],
      ),
    );
    return rows.map(chatFromRow);
  }

  /**
   * One turn: the history to the model through the AI gateway, the answer stored with its cost; tool
   * calls run in the chat's workspace through its agent and their results go back to the model, up to
   * CHAT_MAX_STEPS model calls. Without a workspace the chat then requires action.
   */
  async turn(chat: Chat): Promise<void> {
    try {
      const config = await this.chats.modelConfig(chat.lastModelConfigId);
      if (!config) throw new Error('the chat has no model configuration');
      const type = (await this.providers?.typeOf(config.provider)) ?? null;
      if (type === null) throw new Error(`AI gateway provider "${config.provider}" does not exist`);
      const withTools = chat.workspaceId !== null && this.agentCalls !== undefined && type === 'openai';
      let status: 'waiting' | 'requires_action' = 'waiting';
      for (let step = 0; ; step++) {
        const started = Date.now();
        const history = await this.chats.messages(chat);
        const answer = await this.callModel(chat, config.provider, type, config.model, history, withTools);
        const finished = answer.toolCalls.length === 0 || !withTools || step + 1 >= this.maxSteps;
        if (answer.toolCalls.length > 0 && finished) status = 'requires_action';
        // Tools run before anything is written: the answer, the tool results and the chat's state are one unit.
        const results: { call: (typeof answer.toolCalls)[number]; result: AgentCallResult }[] = [];
        // In the model's order: a command may read the file the previous call wrote.
        if (!finished)
          for (const call of answer.toolCalls)
            results.push({ call, result: await this.runTool(chat, config.id, call) });
        const stillOurs = await this.transactions
          .run(async (tx) => {
            await this.chats.recordAssistantMessage(tx.manager, chat, {
              content: [
                ...(answer.text ? [{ type: 'text', text: answer.text }] : []),
                ...answer.toolCalls.map((call) => ({
                  type: 'tool-call',
                  tool_call_id: call.id,
                  name: call.name,
                  arguments: call.arguments,
                })),
              ],
              modelConfigId: config.id,
              usage: answer.usage,
              runtimeMs: Date.now() - started,
            });
            for (const { call, result } of results)
              await this.chats.recordToolResult(tx.manager, chat, {
                tool_call_id: call.id,
                name: call.name,
                ok: result.ok,
                output: result.output,
              });
            const updated = resultRows(
              finished
                ? await tx.manager.query(
                    `UPDATE chats SET status = $2, runner_id = NULL, leased_until = NULL, last_error = NULL, updated_at = now()
                      WHERE id = $1 AND runner_id = $3 RETURNING id`,
                    [chat.id, status, this.runnerId],
                  )
                : await tx.manager.query(
                    `UPDATE chats SET leased_until = now() + ($2::int * interval '1 millisecond')
                      WHERE id = $1 AND runner_id = $3 RETURNING id`,
                    [chat.id, this.leaseMs, this.runnerId],
                  ),
            );
            // Another runner took the chat over (our lease expired): write nothing.
            if (updated.length === 0) throw new LeaseLost();
            return true;
          })
          .catch((error: unknown) => {
            if (error instanceof LeaseLost) return false;
            throw error;
          });
        if (!stillOurs || finished) return;
        // The tools may have changed the workspace: the chat's git watchers rescan (any instance).
        await this.cluster.publish(GIT_DIRTY_TOPIC + chat.id, {}).catch(() => undefined);
      }
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.logger.warn({ chatId: chat.id, err: message }, 'chat turn failed');
      await this.dataSource
        .query(
          `UPDATE chats SET status = 'error', last_error = $2, runner_id = NULL, leased_until = NULL, updated_at = now()
            WHERE id = $1 AND runner_id = $3`,
          [chat.id, message.slice(0, 2000), this.runnerId],
        )
        .catch(() => undefined);
    }
  }

  private async runTool(
    chat: Chat,
    modelConfigId: string,
    call: { name: string; arguments: string },
  ): Promise<AgentCallResult> {
    if (
      call.name !== OPEN_PULL_REQUEST &&
      call.name !== SPAWN_SUBAGENT &&
      !(AGENT_TOOLS as readonly string[]).includes(call.name)
    )
      return { ok: false, output: `unknown tool ${call.name}` };
    let args: Record<string, unknown>;
    try {
      args = JSON.parse(call.arguments || '{}') as Record<string, unknown>;
    } catch {
      return { ok: false, output: 'the arguments are not JSON' };
    }
    try {
      if (call.name === OPEN_PULL_REQUEST) return await this.openPullRequest(chat, modelConfigId, args);
      if (call.name === SPAWN_SUBAGENT) {
        const child = await this.chats.spawnSubagent(chat, {
          prompt: typeof args.prompt === 'string' ? args.prompt : '',
          title: typeof args.title === 'string' ? args.title : undefined,
        });
        return { ok: true, output: JSON.stringify({ chat_id: child.id, status: child.status }) };
      }
      return await this.agentCalls!.call(chat.workspaceId!, call.name as AgentTool, args, 120_000);
    } catch (error) {
      return { ok: false, output: error instanceof Error ? error.message : String(error) };
    }
  }

  /** A real pull request in a devplane repository, opened as the chat's owner and linked to the chat. */
  private async openPullRequest(
    chat: Chat,
    modelConfigId: string,
    args: Record<string, unknown>,
  ): Promise<AgentCallResult> {
    if (!this.pullRequests) return { ok: false, output: 'pull requests are not available on this server' };
    const text = (key: string): string => (typeof args[key] === 'string' ? (args[key] as string) : '');
    const ownerId = await this.ownerIdOf(chat);
    if (!ownerId) return { ok: false, output: 'the chat owner is gone' };
    const pull = await this.pullRequests.open(ownerId, {
      repository: text('repository'),
      head: text('head'),
      base: text('base'),
      title: text('title'),
      body: text('body'),
    });
    await this.dataSource.query(
      `INSERT INTO chat_pull_requests (chat_id, owner_id, model_config_id, issue_id, repository_id, number, title, html_url, base_branch)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (issue_id) DO NOTHING`,
      [
        chat.id,
        chat.ownerId,
        modelConfigId,
        pull.issueId,
        pull.repositoryId,
        pull.number,
        pull.title.slice(0, 255),
        pull.htmlUrl,
        pull.baseBranch,
      ],
    );
    return {
      ok: true,
      output: JSON.stringify({
        number: pull.number,
        url: pull.htmlUrl,
        state: pull.state,
        additions: pull.additions,
        deletions: pull.deletions,
        changed_files: pull.changedFiles,
      }),
    };
  }

  /** The internal id of the chat's owner (chats keep the user's uuid), or null when the account is gone. */
  private async ownerIdOf(chat: Chat): Promise<string | null> {
    const [owner] = (await this.dataSource.query('SELECT id FROM users WHERE uuid = $1', [chat.ownerId])) as {
      id: string;
    }[];
    return owner ? String(owner.id) : null;
  }

  private base(): string {
    const address = this.http.httpAdapter?.getHttpServer()?.address() as AddressInfo | string | null;
    if (!address || typeof address === 'string') throw new Error('the server does not listen yet');
    return `http://127.0.0.1:${address.port}`;
  }

  private async callModel(
    chat: Chat,
    provider: string,
    type: 'openai' | 'anthropic',
    model: string,
    history: MessageRow[],
    withTools: boolean,
  ): Promise<{
    text: string;
    toolCalls: { id: string; name: string; arguments: string }[];
    usage: { input: number; output: number; reasoning: number; cacheRead: number; cacheWrite: number };
  }> {
    const ownerId = await this.ownerIdOf(chat);
    if (!ownerId) throw new Error('the chat owner is gone');
    const created = await this.tokens.create({
      userId: ownerId,
      name: `chat-runner-${chat.id}-${Date.now()}`,
      scopes: ['all'],
      lifetimeSeconds: 600,
    });
    try {
      const messages = toOpenAiMessages(history);
      const url =
        type === 'openai'
          ? `${this.base()}/api/v2/aigateway/${encodeURIComponent(provider)}/v1/chat/completions`
          : `${this.base()}/api/v2/aigateway/${encodeURIComponent(provider)}/v1/messages`;
      const body =
        type === 'openai'
          ? { model, messages, ...(withTools ? { tools: TOOL_DEFINITIONS } : {}) }
          : {
              model,
              max_tokens: 4096,
              messages: messages
                .filter((message) => message.role === 'user' || message.role === 'assistant')
                .map((message) => ({ role: message.role, content: message.content ?? '' })),
            };
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${created.key}`,
          'Content-Type': 'application/json',
          'User-Agent': 'devplane-chats',
          'X-AI-Gateway-Session-Id': chat.rootChatId ?? chat.id,
          ...(type === 'anthropic' ? { 'anthropic-version': '2023-06-01' } : {}),
        },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(300_000),
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`model call failed: HTTP ${response.status} ${text.slice(0, 300)}`);
      const parsed = JSON.parse(text) as Json;
      if (type === 'openai') {
        const message = parsed.choices?.[0]?.message ?? {};
        const usage = parsed.usage ?? {};
        const cached = Number(usage.prompt_tokens_details?.cached_tokens ?? 0);
        return {
          text: typeof message.content === 'string' ? message.content : '',
          toolCalls: (message.tool_calls ?? []).map((call: Json) => ({
            id: String(call.id),
            name: String(call.function?.name ?? ''),
            arguments: String(call.function?.arguments ?? ''),
          })),
          usage: {
            input: Math.max(0, Number(usage.prompt_tokens ?? 0) - cached),
            output: Number(usage.completion_tokens ?? 0),
            reasoning: Number(usage.completion_tokens_details?.reasoning_tokens ?? 0),
            cacheRead: cached,
            cacheWrite: 0,
          },
        };
      }
      const blocks = (parsed.content ?? []) as Json[];
      const usage = parsed.usage ?? {};
      return {
        text: blocks
          .filter((block) => block.type === 'text')
          .map((block) => String(block.text))
          .join(''),
        toolCalls: blocks
          .filter((block) => block.type === 'tool_use')
          .map((block) => ({
            id: String(block.id),
            name: String(block.name),
            arguments: JSON.stringify(block.input ?? {}),
          })),
        usage: {
          input: Number(usage.input_tokens ?? 0),
          output: Number(usage.output_tokens ?? 0),
          reasoning: 0,
          cacheRead: Number(usage.cache_read_input_tokens ?? 0),
          cacheWrite: Number(usage.cache_creation_input_tokens ?? 0),
        },
      };
    } finally {
      await this.tokens.delete(created.token.id).catch(() => undefined);
    }
  }
}
