import { formatDollars } from './chat-cost';
import type { ChatMessage } from './entities/chat-message.entity';
import type { Chat } from './entities/chat.entity';
import type { ChatFile } from './entities/chat-file.entity';
import type { ChatModelConfig } from './entities/chat-model-config.entity';

/** Coder's Chat JSON (reference D.4). */
export function presentChat(chat: Chat, owner?: { name: string; full_name: string }) {
  return {
    id: chat.id,
    organization_id: chat.organizationId,
    owner_id: chat.ownerId,
    owner_username: owner?.name ?? '',
    owner_name: owner?.full_name ?? '',
    workspace_id: chat.workspaceId ?? undefined,
    parent_chat_id: chat.parentChatId ?? undefined,
    root_chat_id: chat.rootChatId ?? undefined,
    last_model_config_id: chat.lastModelConfigId,
    title: chat.title,
    status: chat.status,
    archived: chat.archived,
    shared: false,
    pin_order: chat.pinOrder,
    mcp_server_ids: [],
    labels: chat.labels ?? {},
    has_unread: false,
    client_type: chat.clientType,
    warnings: [],
    // Go's `*ChatError` is omitempty: absent unless the chat failed; the runner's text with the generic kind.
    ...(chat.lastError ? { last_error: { kind: 'generic', message: chat.lastError } } : {}),
    // Coder nests subagent chats under their root in its list; devplane lists them flat (parent_chat_id).
    children: [],
    last_turn_summary: null,
    created_at: new Date(chat.createdAt).toISOString(),
    updated_at: new Date(chat.updatedAt).toISOString(),
  };
}

export function presentMessage(message: ChatMessage) {
  return {
    id: Number(message.id),
    chat_id: message.chatId,
    role: message.role,
    content: message.content,
    model_config_id: message.modelConfigId ?? undefined,
    usage:
      message.role === 'assistant'
        ? {
            input_tokens: Number(message.inputTokens),
            output_tokens: Number(message.outputTokens),
            reasoning_tokens: Number(message.reasoningTokens),
            cache_read_tokens: Number(message.cacheReadTokens),
            cache_creation_tokens: Number(message.cacheWriteTokens),
          }
        : undefined,
    // Spec 2: null when not priced, 0 when free.
    total_cost_micros:
      message.role === 'assistant'
        ? message.totalCostMicros === null
          ? null
          : Number(message.totalCostMicros)
        : undefined,
    created_at: new Date(message.createdAt).toISOString(),
  };
}

export function presentModelConfig(config: ChatModelConfig, defaultId?: string) {
  const price = (micros: string | null) => formatDollars(micros === null ? null : BigInt(micros));
  return {
    id: config.id,
    provider: config.provider,
    model: config.model,
    display_name: config.displayName,
    input_price_per_million_tokens: price(config.inputPriceMicros),
    output_price_per_million_tokens: price(config.outputPriceMicros),
    cache_read_price_per_million_tokens: price(config.cacheReadPriceMicros),
    cache_write_price_per_million_tokens: price(config.cacheWritePriceMicros),
    // Coder's ChatModelConfig: every configuration is enabled; the default is the one last created or
    // updated with is_default (site config `chats.default_model_config`); no context limit or compression.
    enabled: true,
    is_default: defaultId !== undefined && config.id === defaultId,
    context_limit: 0,
    compression_threshold: 0,
    model_config: {
      // Coder's cost fields are omitempty pointers: an unset price is left out, not null.
      cost: Object.fromEntries(
        Object.entries({
          input_price_per_million_tokens: price(config.inputPriceMicros),
          output_price_per_million_tokens: price(config.outputPriceMicros),
          cache_read_price_per_million_tokens: price(config.cacheReadPriceMicros),
          cache_write_price_per_million_tokens: price(config.cacheWritePriceMicros),
        }).filter(([, value]) => value !== null && value !== undefined),
      ),
    },
    created_at: new Date(config.createdAt).toISOString(),
    updated_at: new Date(config.updatedAt).toISOString(),
  };
}

export function presentFile(file: ChatFile) {
  return {
    id: file.id,
    organization_id: file.organizationId,
    owner_id: file.ownerId,
    name: file.name,
    mime_type: file.mimeType,
    size_bytes: Number(file.sizeBytes),
    created_at: new Date(file.createdAt).toISOString(),
  };
}
