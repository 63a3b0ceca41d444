import { Chat } from './chat.entity';
import { ChatFile } from './chat-file.entity';
import { ChatMessage } from './chat-message.entity';
import { ChatModelConfig } from './chat-model-config.entity';
import { ChatPullRequest } from './chat-pull-request.entity';

export const CHATS_ENTITIES: Function[] = [ChatModelConfig, Chat, ChatMessage, ChatFile, ChatPullRequest];
