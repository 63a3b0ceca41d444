import type { ModuleManifest } from '../../platform/modules/module-manifest';
import { int } from '../../platform/config/app-config';
import { ChatsModule } from './chats.module';
import { CHATS_ENTITIES } from './entities';
import { CHATS_MIGRATIONS } from './migrations';

/** Chats as the composition root (src/app.modules.ts) sees them. */
export const CHATS_MANIFEST: ModuleManifest = {
  name: 'chats',
  module: ChatsModule,
  entities: CHATS_ENTITIES,
  migrations: CHATS_MIGRATIONS,
  validateConfig: (env) => void int(env, 'CHAT_RETENTION_DAYS', 60, 0, 36_500),
};
