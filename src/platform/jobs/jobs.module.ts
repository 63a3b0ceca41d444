import { Global, Module } from '@nestjs/common';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.token';
import { EventOutbox } from './event-outbox.service';
import { JobQueue } from './job-queue.service';
import { JOBS_CONFIG, loadJobsConfig } from './jobs.config';

/** Durable jobs (the `jobs` table): JobQueue for every module, one worker loop per instance; the event outbox. */
@Global()
@Module({
  providers: [
    {
      provide: JOBS_CONFIG,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => loadJobsConfig(config.env),
    },
    JobQueue,
    EventOutbox,
  ],
  exports: [JobQueue, EventOutbox, JOBS_CONFIG],
})
export class JobsModule {}
