import type { MessageRow } from './repositories/chat-messages.repository';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- provider JSON, read field by field
type Json = Record<string, any>;

export interface OpenAiMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | null;
  tool_calls?: unknown[];
  tool_call_id?: string;
}

/** A model's answer in one call: its text, the tool calls it asks for, the tokens it used. */
export interface ModelAnswer {
  text: string;
  toolCalls: { id: string; name: string; arguments: string }[];
  usage: { input: number; output: number; reasoning: number; cacheRead: number; cacheWrite: number };
}

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
 * The path (under the AI gateway's data plane) and the JSON body of a model call: OpenAI chat
 * completions with the tools when given; Anthropic messages with the user and assistant texts only.
 */
export function modelRequest(
  type: 'openai' | 'anthropic',
  provider: string,
  model: string,
  messages: OpenAiMessage[],
  tools: unknown[] | undefined,
): { path: string; body: Json } {
  if (type === 'openai')
    return {
      path: `/api/v2/aigateway/${encodeURIComponent(provider)}/v1/chat/completions`,
      body: { model, messages, ...(tools ? { tools } : {}) },
    };
  return {
    path: `/api/v2/aigateway/${encodeURIComponent(provider)}/v1/messages`,
    body: {
      model,
      max_tokens: 4096,
      messages: messages
        .filter((message) => message.role === 'user' || message.role === 'assistant')
        .map((message) => ({ role: message.role, content: message.content ?? '' })),
    },
  };
}

/**
 * A provider's answer: OpenAI's first choice (cached prompt tokens counted apart from the input) or
 * Anthropic's text and `tool_use` blocks (a tool call's arguments are its input as JSON).
 */
export function modelAnswer(type: 'openai' | 'anthropic', parsed: Json): ModelAnswer {
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
}
