import type { GiteaAssetDto } from '../issues/gitea-issue.presenter';
import type { Attachment } from './attachment.entity';

/** Gitea's `Attachment` JSON (reference §1.2); `browser_download_url` is the `/attachments/{uuid}` route. */
export function presentGiteaAttachment(attachment: Attachment, publicUrl: string): GiteaAssetDto {
  return {
    id: Number(attachment.id),
    name: attachment.name,
    size: Number(attachment.size),
    download_count: Number(attachment.downloadCount),
    created_at: attachment.createdAt.toISOString(),
    uuid: attachment.uuid,
    browser_download_url: `${publicUrl}attachments/${encodeURIComponent(attachment.uuid)}`,
  };
}
