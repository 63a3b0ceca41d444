import type { ModelUsage } from '../../platform/ports/model-gateway';
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
  usage: ModelUsage;
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
 * The provider API path (as the AI gateway's data plane takes it after the provider's name) and the
 * JSON body of a model call: OpenAI chat completions with the tools when given; Anthropic messages
 * with the user and assistant texts only.
 */
export function modelRequest(
  type: 'openai' | 'anthropic',
  model: string,
  messages: OpenAiMessage[],
  tools: unknown[] | undefined,
): { path: string; body: Json } {
  if (type === 'openai')
    return { path: '/v1/chat/completions', body: { model, messages, ...(tools ? { tools } : {}) } };
  return {
    path: '/v1/messages',
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
 * The text of a provider's answer: OpenAI's first choice, or Anthropic's text blocks joined. The tool
 * calls and the token usage come from the AI gateway's record of the call (`ModelGateway`), not from
 * a second reading here.
 */
export function answerText(type: 'openai' | 'anthropic', parsed: Json | null): string {
  if (!parsed) return '';
  if (type === 'openai') {
    const content = parsed.choices?.[0]?.message?.content;
    return typeof content === 'string' ? content : '';
  }
  return ((parsed.content ?? []) as Json[])
    .filter((block) => block.type === 'text')
    .map((block) => String(block.text))
    .join('');
}
