import { ChatCostsRepository } from './chat-costs.repository';
import { ChatFilesRepository } from './chat-files.repository';
import { ChatMessagesRepository } from './chat-messages.repository';
import { ChatModelConfigsRepository } from './chat-model-configs.repository';
import { ChatPullRequestsRepository } from './chat-pull-requests.repository';
import { ChatsRepository } from './chats.repository';

/** The chats module's repositories (all its SQL). */
export const CHATS_REPOSITORIES = [
  ChatsRepository,
  ChatMessagesRepository,
  ChatModelConfigsRepository,
  ChatFilesRepository,
  ChatPullRequestsRepository,
  ChatCostsRepository,
];
