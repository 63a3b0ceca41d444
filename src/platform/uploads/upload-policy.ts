import type { EntityManager } from 'typeorm';
import type { RequestSnapshot } from '../events/subject-events';

/** What a module that stores or serves a file knows when it asks whether the file is allowed. */
export interface FileAccessRequest {
  /** File name (basename). */
  name: string;
  /** MIME type as declared or stored (null: guessed from the name). */
  mimeType?: string | null;
  /** Size in bytes; for uploads the declared size (`requestSnapshot()` fills `request.declaredSize`). */
  size?: number | null;
  /** Numeric id of the user who uploads or downloads, null when anonymous. */
  actorUserId: string | null;
  /** The request (for the request checks); null for background work. */
  request: RequestSnapshot | null;
}

/**
 * The upload access check, a port of the platform: attachments and package registries inject
 * `UploadPolicy` and call `assertFileAllowed` BEFORE they accept, replace or serve a file. The
 * workflows module implements it (Nextcloud's files_accesscontrol: a matching admin rule refuses
 * the file with a ForbiddenError); without it every file is allowed.
 */
export abstract class UploadPolicy {
  /** Throws a ForbiddenError (403 in every dialect) when the file is refused. */
  abstract assertFileAllowed(file: FileAccessRequest, manager?: EntityManager): Promise<void>;
}
