import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { AppConfig } from '../../platform/config/app-config';
import { APP_CONFIG } from '../../platform/config/config.token';
import { AgentsExperimentGuard } from './agents-experiment.guard';
import { ChatFilesService } from './chat-files.service';
import { ChatInsightsService } from './chat-insights.service';
import { ChatRetentionService } from './chat-retention.service';
import { ChatRunnerService } from './chat-runner.service';
import { CHATS_CONFIG, loadChatsConfig } from './chats.config';
import './chats.error-codes';
import { ChatsService } from './chats.service';
import { ChatsController } from './controllers/chats.controller';
import {
  ChatMcpServersController,
  ChatUserConfigController,
} from './controllers/chat-user-config.controller';
import { DesktopGateway, DesktopStreamGateway } from './controllers/desktop.gateway';
import { ChatStreamGateway } from './controllers/chat-stream.gateway';
import { ChatsWatchGateway } from './controllers/chats-watch.gateway';
import { GitStreamGateway, GitWatchGateway } from './controllers/git-watch.gateway';
import { CHATS_ENTITIES } from './entities';
import { CHATS_REPOSITORIES } from './repositories';

/** Chats (spec 2 table C, issue 19): see README.md. */
@Module({
  imports: [TypeOrmModule.forFeature(CHATS_ENTITIES)],
  // ChatUserConfigController first: `by-workspace`, `usage-limits/status`, `config/*` are not `{chat}`
  controllers: [ChatUserConfigController, ChatMcpServersController, ChatsController],
  providers: [
    {
      provide: CHATS_CONFIG,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => loadChatsConfig(config.env),
    },
    ...CHATS_REPOSITORIES,
    ChatsService,
    ChatFilesService,
    ChatInsightsService,
    ChatRetentionService,
    ChatRunnerService,
    AgentsExperimentGuard,
    GitWatchGateway,
    ChatsWatchGateway,
    ChatStreamGateway,
    GitStreamGateway,
    DesktopGateway,
    DesktopStreamGateway,
  ],
  exports: [ChatsService],
})
export class ChatsModule {}
