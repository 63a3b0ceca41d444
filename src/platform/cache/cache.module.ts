import { Global, Module } from '@nestjs/common';
import { TableWriteTracker } from './table-write-tracker.service';

/** Keeps the table versions behind VersionedCache current (this instance's writes and other instances'). */
@Global()
@Module({ providers: [TableWriteTracker] })
export class CacheModule {}
