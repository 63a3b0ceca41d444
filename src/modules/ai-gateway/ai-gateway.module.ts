import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { AppConfig } from '../../platform/config/app-config';
import { APP_CONFIG } from '../../platform/config/config.token';
import { AiProviderDirectory } from '../../platform/ports/ai-provider-directory';
import { AiSeats } from '../../platform/ports/ai-seats';
import { ModelGateway } from '../../platform/ports/model-gateway';
import { AI_GATEWAY_CONFIG, loadAiGatewayConfig } from './ai-gateway.config';
import './ai-gateway.error-codes';
import { AiGatewayQueries } from './ai-gateway-queries.service';
import { AiProvidersService } from './ai-providers.service';
import { AiSeatsProvider } from './ai-seats.provider';
import { ConnectProxyService } from './connect-proxy.service';
import {
  AiGatewayProxyAliasController,
  AiGatewayProxyController,
} from './controllers/ai-gateway-proxy.controller';
import {
  AiBridgeLegacyController,
  AiGatewayAliasController,
  AiGatewayController,
} from './controllers/ai-gateway.controller';
import { CoderAiProvidersController } from './controllers/coder-ai-providers.controller';
import { AI_GATEWAY_ENTITIES } from './entities';
import { InterceptionsRecorder } from './interceptions-recorder.service';
import { ModelGatewayService } from './model-gateway.service';
import { AiInterceptionsRepository } from './repositories/ai-interceptions.repository';
import { AiProvidersRepository } from './repositories/ai-providers.repository';
import { InterceptionRecordsRepository } from './repositories/interception-records.repository';

/** The AI gateway: provider proxy, in-process model calls (ModelGateway), interception records, sessions API, AI seats, CONNECT proxy. See README.md. */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature(AI_GATEWAY_ENTITIES)],
  // The API first: its paths (sessions, interceptions, ...) must win over the data plane's `:provider/*`.
  controllers: [
    AiGatewayController,
    AiGatewayAliasController,
    AiBridgeLegacyController,
    CoderAiProvidersController,
    AiGatewayProxyController,
    AiGatewayProxyAliasController,
  ],
  providers: [
    {
      provide: AI_GATEWAY_CONFIG,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => loadAiGatewayConfig(config.env),
    },
    AiProvidersRepository,
    AiInterceptionsRepository,
    InterceptionRecordsRepository,
    AiProvidersService,
    InterceptionsRecorder,
    AiGatewayQueries,
    AiSeatsProvider,
    { provide: AiSeats, useExisting: AiSeatsProvider },
    {
      provide: AiProviderDirectory,
      inject: [AiProvidersService],
      useFactory: (providers: AiProvidersService): AiProviderDirectory => ({
        exists: async (name) => (await providers.find(name)) !== null,
        typeOf: async (name) => (await providers.find(name))?.type ?? null,
      }),
    },
    ModelGatewayService,
    { provide: ModelGateway, useExisting: ModelGatewayService },
    ConnectProxyService,
  ],
  exports: [AiSeats, AiProviderDirectory, ModelGateway],
})
export class AiGatewayModule {}
