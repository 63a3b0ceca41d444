import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { ProviderType } from '../ai-gateway.config';

/**
 * What the gateway reads from the provider wire formats it proxies (OpenAI chat completions and
 * responses, Anthropic messages): the request's model, prompt and tool results, and each response's
 * id, token usage and tool calls, streamed (SSE) or not. The bytes themselves pass through untouched.
 */
export type WireApi = 'chat_completions' | 'responses' | 'messages';

export interface RequestFacts {
  api: WireApi | null;
  model: string;
  stream: boolean;
  /** The last user message's text, if any. */
  prompt: string | null;
  /** Ids of earlier tool calls whose results this request carries (thread correlation). */
  toolResultIds: string[];
}

export interface Usage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** The provider's other token counts, named as Coder's AI Bridge records them (`token_usage.metadata`). */
  metadata: Record<string, number>;
}

export interface ToolCall {
  id: string;
  name: string;
  input: string;
}

export interface ResponseFacts {
  responseId: string;
  model: string | null;
  usage: Usage | null;
  toolCalls: ToolCall[];
  error: { type: string; message: string } | null;
}

type Json = Record<string, unknown>;
const obj = (value: unknown): Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {};
const arr = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const str = (value: unknown): string => (typeof value === 'string' ? value : '');
const num = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

/** Which API a path under the provider is (`/v1/chat/completions`, `/v1/responses`, `/v1/messages`). */
export function wireApi(type: ProviderType, path: string): WireApi | null {
  const clean = path.split('?')[0]!.replace(/\/+$/, '');
  if (type === 'anthropic') return clean.endsWith('/messages') ? 'messages' : null;
  if (clean.endsWith('/chat/completions')) return 'chat_completions';
  if (clean.endsWith('/responses')) return 'responses';
  return null;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  return arr(content)
    .map((part) => obj(part))
    .filter((part) => ['text', 'input_text'].includes(str(part.type)))
    .map((part) => str(part.text))
    .join('\n');
}

export function requestFacts(type: ProviderType, path: string, body: unknown): RequestFacts {
  const api = wireApi(type, path);
  const request = obj(body);
  const facts: RequestFacts = {
    api,
    model: str(request.model),
    stream: request.stream === true,
    prompt: null,
    toolResultIds: [],
  };
  if (api === 'chat_completions' || api === 'messages') {
    const messages = arr(request.messages).map(obj);
    for (const message of messages) {
      if (str(message.role) === 'tool' && str(message.tool_call_id))
        facts.toolResultIds.push(str(message.tool_call_id));
      for (const block of arr(message.content).map(obj))
        if (str(block.type) === 'tool_result' && str(block.tool_use_id))
          facts.toolResultIds.push(str(block.tool_use_id));
    }
    const lastUser = [...messages].reverse().find((message) => str(message.role) === 'user');
    const text = lastUser ? textOf(lastUser.content) : '';
    facts.prompt = text !== '' ? text : null;
  } else if (api === 'responses') {
    if (typeof request.input === 'string') facts.prompt = request.input;
    else {
      const items = arr(request.input).map(obj);
      for (const item of items)
        if (str(item.type) === 'function_call_output' && str(item.call_id))
          facts.toolResultIds.push(str(item.call_id));
      const lastUser = [...items].reverse().find((item) => str(item.role) === 'user');
      const text = lastUser ? textOf(lastUser.content) : '';
      facts.prompt = text !== '' ? text : null;
    }
  }
  return facts;
}

function usageOf(api: WireApi, raw: unknown): Usage | null {
  const usage = obj(raw);
  if (Object.keys(usage).length === 0) return null;
  if (api === 'messages')
    return {
      input: num(usage.input_tokens),
      output: num(usage.output_tokens),
      cacheRead: num(usage.cache_read_input_tokens),
      cacheWrite: num(usage.cache_creation_input_tokens),
      metadata: anthropicUsageMetadata(usage),
    };
  // OpenAI counts cached tokens inside the prompt tokens; the record keeps them apart, as Anthropic does.
  const promptDetails = obj(usage.prompt_tokens_details ?? usage.input_tokens_details);
  const completionDetails = obj(usage.completion_tokens_details ?? usage.output_tokens_details);
  const cached = num(promptDetails.cached_tokens);
  const input = api === 'chat_completions' ? num(usage.prompt_tokens) : num(usage.input_tokens);
  const output = api === 'chat_completions' ? num(usage.completion_tokens) : num(usage.output_tokens);
  const metadata = present({
    prompt_cached: promptDetails.cached_tokens,
    prompt_audio: promptDetails.audio_tokens,
    completion_reasoning: completionDetails.reasoning_tokens,
    completion_audio: completionDetails.audio_tokens,
    completion_accepted_predictions: completionDetails.accepted_prediction_tokens,
    completion_rejected_predictions: completionDetails.rejected_prediction_tokens,
  });
  return { input: Math.max(0, input - cached), output, cacheRead: cached, cacheWrite: 0, metadata };
}

/** Anthropic's token counts beyond input and output (cache writes by lifetime, server tool requests). */
function anthropicUsageMetadata(usage: Json): Record<string, number> {
  const creation = obj(usage.cache_creation);
  return present({
    cache_read_input: usage.cache_read_input_tokens,
    cache_creation_input: usage.cache_creation_input_tokens,
    cache_ephemeral_5m_input: creation.ephemeral_5m_input_tokens,
    cache_ephemeral_1h_input: creation.ephemeral_1h_input_tokens,
    web_search_requests: obj(usage.server_tool_use).web_search_requests,
  });
}

/** The numeric entries (what the provider sent; absent counts are left out, not recorded as 0). */
function present(values: Record<string, unknown>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, value] of Object.entries(values))
    if (typeof value === 'number' && Number.isFinite(value)) out[key] = value;
  return out;
}

function errorOf(body: Json): ResponseFacts['error'] {
  const error = obj(body.error);
  if (Object.keys(error).length === 0) return null;
  return { type: str(error.type) || str(error.code) || 'error', message: str(error.message) };
}

/** One complete (non-streamed) response body. */
export function responseFacts(api: WireApi, raw: unknown): ResponseFacts {
  const body = obj(raw);
  const facts: ResponseFacts = {
    responseId: str(body.id),
    model: str(body.model) || null,
    usage: usageOf(api, body.usage),
    toolCalls: [],
    error: errorOf(body),
  };
  if (api === 'chat_completions') {
    for (const choice of arr(body.choices).map(obj))
      for (const call of arr(obj(choice.message).tool_calls).map(obj)) {
        const fn = obj(call.function);
        facts.toolCalls.push({ id: str(call.id), name: str(fn.name), input: str(fn.arguments) });
      }
  } else if (api === 'responses') {
    for (const item of arr(body.output).map(obj))
      if (str(item.type) === 'function_call')
        facts.toolCalls.push({ id: str(item.call_id), name: str(item.name), input: str(item.arguments) });
  } else {
    for (const block of arr(body.content).map(obj))
      if (str(block.type) === 'tool_use')
        facts.toolCalls.push({
          id: str(block.id),
          name: str(block.name),
          input: JSON.stringify(block.input ?? {}),
        });
  }
  return facts;
}

/**
 * Reads a response as it streams past (SSE or a JSON body), without holding up the bytes: the
 * caller writes each chunk to the client and hands a copy here.
 */
export class ResponseCollector {
  private readonly decoder = new TextDecoder();
  private json = '';
  private readonly parser;
  private readonly streamed: ResponseFacts = {
    responseId: '',
    model: null,
    usage: null,
    toolCalls: [],
    error: null,
  };
  /** Tool calls being streamed, by choice/content index. */
  private readonly partial = new Map<number, ToolCall>();

  constructor(
    private readonly api: WireApi,
    private readonly sse: boolean,
  ) {
    this.parser = createParser({ onEvent: (event) => this.onEvent(event) });
  }

  push(chunk: Buffer): void {
    const text = this.decoder.decode(chunk, { stream: true });
    if (this.sse) this.parser.feed(text);
    else if (this.json.length < 64 * 1024 * 1024) this.json += text;
  }

  finish(): ResponseFacts {
    if (!this.sse) {
      try {
        return responseFacts(this.api, JSON.parse(this.json));
      } catch {
        return { responseId: '', model: null, usage: null, toolCalls: [], error: null };
      }
    }
    this.streamed.toolCalls.push(...this.partial.values());
    return this.streamed;
  }

  private onEvent(event: EventSourceMessage): void {
    if (event.data === '[DONE]') return;
    let data: Json;
    try {
      data = obj(JSON.parse(event.data));
    } catch {
      return;
    }
    const facts = this.streamed;
    const type = str(data.type) || event.event || '';
    if (this.api === 'chat_completions') {
      facts.responseId ||= str(data.id);
      facts.model ||= str(data.model) || null;
      if (data.usage) facts.usage = usageOf('chat_completions', data.usage);
      for (const choice of arr(data.choices).map(obj))
        for (const delta of arr(obj(choice.delta).tool_calls).map(obj)) {
          const index = num(delta.index);
          const call = this.partial.get(index) ?? { id: '', name: '', input: '' };
          const fn = obj(delta.function);
          call.id ||= str(delta.id);
          call.name ||= str(fn.name);
          call.input += str(fn.arguments);
          this.partial.set(index, call);
        }
      if (data.error) facts.error = errorOf(data);
    } else if (this.api === 'responses') {
      if (type === 'response.completed' || type === 'response.failed' || type === 'response.incomplete') {
        const done = responseFacts('responses', data.response);
        Object.assign(facts, done, { error: done.error ?? facts.error });
      } else if (type === 'error')
        facts.error = { type: str(data.code) || 'error', message: str(data.message) };
    } else {
      if (type === 'message_start') {
        const message = obj(data.message);
        facts.responseId = str(message.id);
        facts.model = str(message.model) || null;
        facts.usage = usageOf('messages', message.usage);
      } else if (type === 'content_block_start') {
        const block = obj(data.content_block);
        if (str(block.type) === 'tool_use')
          this.partial.set(num(data.index), { id: str(block.id), name: str(block.name), input: '' });
      } else if (type === 'content_block_delta') {
        const delta = obj(data.delta);
        const call = this.partial.get(num(data.index));
        if (call && str(delta.type) === 'input_json_delta') call.input += str(delta.partial_json);
      } else if (type === 'message_delta') {
        const usage = obj(data.usage);
        if (facts.usage) {
          facts.usage.output = num(usage.output_tokens) || facts.usage.output;
          if (usage.input_tokens !== undefined) facts.usage.input = num(usage.input_tokens);
          if (usage.cache_read_input_tokens !== undefined)
            facts.usage.cacheRead = num(usage.cache_read_input_tokens);
          if (usage.cache_creation_input_tokens !== undefined)
            facts.usage.cacheWrite = num(usage.cache_creation_input_tokens);
          Object.assign(facts.usage.metadata, anthropicUsageMetadata(usage));
        } else facts.usage = usageOf('messages', usage);
      } else if (type === 'error') facts.error = errorOf(data);
    }
  }
}

/** Coder-style client names from the User-Agent (several recognized; unknown = null, shown as `Unknown`). */
const CLIENTS: [RegExp, string][] = [
  [/claude-cli|claude-code/i, 'claude-code'],
  [/codex/i, 'codex'],
  [/copilot-cli/i, 'copilot-cli'],
  [/copilot/i, 'copilot'],
  [/cursor/i, 'cursor'],
  [/roo-?code/i, 'roo-code'],
  [/kilo-?code/i, 'kilo-code'],
  [/opencode/i, 'opencode'],
  [/\bzed\b/i, 'zed'],
  [/\bmux\b/i, 'mux'],
  [/devplane-chat/i, 'devplane-chat'],
];

export function clientFromUserAgent(userAgent: string | undefined): string | null {
  if (!userAgent) return null;
  for (const [pattern, client] of CLIENTS) if (pattern.test(userAgent)) return client;
  return null;
}

/** A key hint that never reveals the key: the first 4 and last 4 characters of long keys. */
export function maskKey(key: string): string {
  if (key.length <= 12) return '*'.repeat(Math.max(4, key.length));
  return `${key.slice(0, 4)}...${key.slice(-4)}`;
}
