import type { Request, Response } from 'express';
import { sendBlobDownload } from '../../../api/download/blob-download';
import { NotFoundError } from '../../../platform/errors/domain-error';
import type { BlobStore } from '../../../platform/storage/blob-store';
import type { PackageFile } from '../entities/package-file.entity';
import type { PackagesService } from '../packages.service';

/** A registry file download (generic and npm): ranges, ETag; the version's download count moves when bytes went out. */
export async function sendPackageFile(
  packages: PackagesService,
  blobs: BlobStore,
  file: PackageFile | null,
  req: Request,
  res: Response,
  type: 'npm' | 'generic',
): Promise<void> {
  if (!file) throw new NotFoundError('package file does not exist', { code: 'PACKAGE_FILE_NOT_FOUND' });
  const sent = await sendBlobDownload(blobs, req, res, {
    key: file.blob.blobKey,
    size: Number(file.blob.size),
    etag: file.blob.sha256,
    fileName: file.name,
    contentType: 'application/octet-stream',
    lastModified: file.createdAt,
  });
  // The response is complete: the counter write does not hold the client (npm fetches hundreds of files).
  if (sent) packages.recordDownload(file.version, type);
}
