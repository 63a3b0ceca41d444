import { loadAiGatewayConfig } from './ai-gateway.config';
import type { ModuleManifest } from '../../platform/modules/module-manifest';
import { AiGatewayModule } from './ai-gateway.module';
import { AI_GATEWAY_ENTITIES } from './entities';
import { AI_GATEWAY_MIGRATIONS } from './migrations';

/** The AI gateway as the composition root (src/app.modules.ts) sees it. */
export const AI_GATEWAY_MANIFEST: ModuleManifest = {
  name: 'ai-gateway',
  module: AiGatewayModule,
  entities: AI_GATEWAY_ENTITIES,
  migrations: AI_GATEWAY_MIGRATIONS,
  validateConfig: (env) => void loadAiGatewayConfig(env),
};
