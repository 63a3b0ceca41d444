import { Injectable } from '@nestjs/common';
import { UnavailableError } from '../../platform/errors/domain-error';
import { rateLimitStoreStatus } from '../../platform/http/rate-limit';
import { BlobStore } from '../../platform/storage/blob-store';
import { BootstrapAdminService } from '../identity/bootstrap-admin.service';
import { readyReport, type ReadyReport } from './readiness';
import { SystemHealthRepository } from './system-health.repository';

/** Readiness: the database and the blob store answer and the bootstrap administrator exists. */
@Injectable()
export class ReadinessService {
  constructor(
    private readonly health: SystemHealthRepository,
    private readonly blobs: BlobStore,
    private readonly bootstrap: BootstrapAdminService,
  ) {}

  async ready(): Promise<ReadyReport> {
    try {
      await this.health.ping();
    } catch (error) {
      throw new UnavailableError('database unreachable', { cause: error });
    }
    // Uploads and downloads need the blob store (issue 36.9: S3 down, uploads answered 500 while ready).
    try {
      await this.blobs.ping();
    } catch (error) {
      throw new UnavailableError('blob store unreachable', { cause: error });
    }
    // Ready means a request with the configured admin credentials succeeds (issue 31.13): the server
    // creates the first administrator only once it listens.
    if (!(await this.bootstrap.bootstrapDone())) {
      throw new UnavailableError('bootstrap administrator not created yet');
    }
    // Rate limits fail open while Redis is down (counted per instance): reported, not a reason to be unready.
    return readyReport(rateLimitStoreStatus());
  }
}
