import { Global, Inject, Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import path from 'node:path';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.token';
import { ConfigError } from '../config/app-config';
import { BlobStore } from './blob-store';
import { LocalBlobStore } from './local-blob-store';
import { S3BlobStore } from './s3-blob-store';

/** Builds the configured driver (STORAGE_TYPE): `local` under DATA_DIR/blobs, or `s3`. */
export function createBlobStore(config: AppConfig): BlobStore {
  if (config.storage.type === 'local') return new LocalBlobStore(path.join(config.dataDir, 'blobs'));
  const { bucket, endpoint, accessKey, secretKey, region } = config.storage.s3;
  if (!bucket) throw new ConfigError('S3_BUCKET', 'is required when STORAGE_TYPE=s3');
  return new S3BlobStore({ bucket, endpoint, accessKey, secretKey, region });
}

/** At boot (src/main.ts): an S3 store's bucket must exist and answer (ConfigError otherwise); local: nothing. */
export async function checkBlobStoreAtBoot(config: AppConfig): Promise<void> {
  if (config.storage.type !== 's3') return;
  const store = createBlobStore(config) as S3BlobStore;
  try {
    await store.checkBucket();
  } finally {
    store.close();
  }
}

@Injectable()
class BlobStoreCloser implements OnApplicationShutdown {
  constructor(@Inject(BlobStore) private readonly store: BlobStore) {}
  onApplicationShutdown(): void {
    if (this.store instanceof S3BlobStore) this.store.close();
  }
}

/** With PostgreSQL several instances may share DATA_DIR/blobs: only uploads untouched this long are abandoned. */
const SHARED_UPLOAD_GRACE_MS = 60 * 60 * 1000;

/** The configured store; a local one first drops the uploads a killed process left (issue #46.5). */
async function openBlobStore(config: AppConfig): Promise<BlobStore> {
  const store = createBlobStore(config);
  if (store instanceof LocalBlobStore)
    await store.removeAbandonedUploads(config.databaseUrl === undefined ? 0 : SHARED_UPLOAD_GRACE_MS);
  return store;
}

/** Provides `BlobStore` (inject the abstract class) to every module. */
@Global()
@Module({
  providers: [{ provide: BlobStore, inject: [APP_CONFIG], useFactory: openBlobStore }, BlobStoreCloser],
  exports: [BlobStore],
})
export class StorageModule {}
