import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  Optional,
} from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { AppConfig } from '../../platform/config/app-config';
import { APP_CONFIG } from '../../platform/config/config.token';
import { TransactionRunner } from '../../platform/database/transaction-runner.service';
import { ClusterBus } from '../../platform/events/cluster-bus.service';
import { LeaseLoop } from '../../platform/jobs/lease-loop';
import { AiProviderDirectory } from '../../platform/ports/ai-provider-directory';
import { ModelGateway } from '../../platform/ports/model-gateway';
import { PullRequests } from '../../platform/ports/pull-requests';
import {
  type AgentCallResult,
  type AgentTool,
  WorkspaceAgentCalls,
} from '../../platform/ports/workspace-agent-calls';
import { AGENTS_EXPERIMENT } from './agents-experiment.guard';
import { answerText, type ModelAnswer, modelRequest, toOpenAiMessages } from './chat-model-wire';
import { CHATS_CONFIG, type ChatsConfig } from './chats.config';
import { ChatsService, type MessageRow } from './chats.service';
import type { Chat } from './entities/chat.entity';
import { CHATS_PENDING_TOPIC, GIT_DIRTY_TOPIC } from './events';
import { ChatPullRequestsRepository } from './repositories/chat-pull-requests.repository';
import { ChatsRepository } from './repositories/chats.repository';

export { acquireBatchSize } from './chats.config';
export { toOpenAiMessages } from './chat-model-wire';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- provider JSON, read field by field
type Json = Record<string, any>;

/** The client name the gateway records for chat calls (`devplane-chat`). */
const CHAT_USER_AGENT = 'devplane-chats';

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

/**
 * The chat runner (issue 19.2): every instance acquires pending chats in batches of
 * CHAT_ACQUIRE_BATCH_SIZE with `FOR UPDATE SKIP LOCKED` (so instances share the work and no chat runs
 * twice), under a lease that a dead runner loses. A turn calls the chat's model through the AI
 * gateway in process (the `ModelGateway` port), for the chat's owner, so the interception and its
 * token usage are recorded there as for any data-plane client; the answer is stored with the cost of
 * the recorded usage. No API token is minted and no HTTP request leaves for this server.
 */
@Injectable()
export class ChatRunnerService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ChatRunnerService.name);
  readonly runnerId = randomUUID();
  private readonly batchSize: number;
  private readonly enabled: boolean;
  private readonly leaseMs = 120_000;
  private readonly maxSteps: number;
  private readonly loop = new LeaseLoop(
    () => this.round(),
    (error) => this.logger.warn({ err: error }, 'chat runner pass failed'),
  );
  private poller: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly chatRows: ChatsRepository,
    private readonly pullRequestLinks: ChatPullRequestsRepository,
    private readonly transactions: TransactionRunner,
    private readonly chats: ChatsService,
    private readonly cluster: ClusterBus,
    @Inject(APP_CONFIG) app: AppConfig,
    @Inject(CHATS_CONFIG) config: ChatsConfig,
    @Optional() private readonly providers?: AiProviderDirectory,
    @Optional() private readonly agentCalls?: WorkspaceAgentCalls,
    @Optional() private readonly pullRequests?: PullRequests,
    @Optional() private readonly models?: ModelGateway,
  ) {
    this.maxSteps = config.maxSteps;
    this.batchSize = config.acquireBatchSize;
    this.enabled = app.experiments.includes(AGENTS_EXPERIMENT) && config.runnerEnabled;
  }

  onApplicationBootstrap(): void {
    if (!this.enabled) return;
    this.unsubscribe = this.cluster.subscribe(CHATS_PENDING_TOPIC, () => this.loop.kick());
    // The fallback poll: a pending chat whose announcement was lost waits at most a second.
    this.poller = setInterval(() => this.loop.kick(), 1_000);
    this.poller.unref();
    this.loop.kick();
  }

  async onApplicationShutdown(): Promise<void> {
    this.unsubscribe?.();
    clearInterval(this.poller);
    await this.loop.stop();
  }

  /** One pass: a batch acquired and its turns run; a full batch may have left pending chats behind. */
  private async round(): Promise<boolean> {
    const batch = await this.acquire();
    await Promise.all(batch.map((chat) => this.turn(chat)));
    return batch.length === this.batchSize;
  }

  /** Takes up to a batch of pending chats (and chats whose runner's lease expired). */
  acquire(): Promise<Chat[]> {
    return this.chatRows.acquire(this.runnerId, this.leaseMs, this.batchSize);
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
            const ours = finished
              ? await this.chatRows.finishTurn(chat.id, status, this.runnerId, tx.manager)
              : await this.chatRows.extendLease(chat.id, this.leaseMs, this.runnerId, tx.manager);
            // Another runner took the chat over (our lease expired): write nothing.
            if (!ours) throw new LeaseLost();
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
      await this.chatRows.failTurn(chat.id, message.slice(0, 2000), this.runnerId).catch(() => undefined);
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
    const ownerId = await this.chats.ownerIdOf(chat);
    if (!ownerId) return { ok: false, output: 'the chat owner is gone' };
    const pull = await this.pullRequests.open(ownerId, {
      repository: text('repository'),
      head: text('head'),
      base: text('base'),
      title: text('title'),
      body: text('body'),
    });
    await this.pullRequestLinks.link({
      chatId: chat.id,
      ownerId: chat.ownerId,
      modelConfigId,
      issueId: pull.issueId,
      repositoryId: pull.repositoryId,
      number: pull.number,
      title: pull.title.slice(0, 255),
      htmlUrl: pull.htmlUrl,
      baseBranch: pull.baseBranch,
    });
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

  private async callModel(
    chat: Chat,
    provider: string,
    type: 'openai' | 'anthropic',
    model: string,
    history: MessageRow[],
    withTools: boolean,
  ): Promise<ModelAnswer> {
    if (!this.models) throw new Error('the AI gateway is not available on this server');
    const ownerId = await this.chats.ownerIdOf(chat);
    if (!ownerId) throw new Error('the chat owner is gone');
    const request = modelRequest(
      type,
      model,
      toOpenAiMessages(history),
      withTools ? TOOL_DEFINITIONS : undefined,
    );
    const result = await this.models.call({
      initiatorId: ownerId,
      provider,
      path: request.path,
      body: request.body,
      sessionId: chat.rootChatId ?? chat.id,
      userAgent: CHAT_USER_AGENT,
      signal: AbortSignal.timeout(300_000),
    });
    if (result.status < 200 || result.status >= 300)
      throw new Error(
        `model call failed: HTTP ${result.status} ${JSON.stringify(result.body ?? result.error?.message ?? '').slice(0, 300)}`,
      );
    return {
      text: answerText(type, result.body as Json | null),
      toolCalls: result.toolCalls,
      usage: result.usage,
    };
  }
}
