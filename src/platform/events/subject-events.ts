import type { Request } from 'express';

/**
 * Events about the platform's stored subjects (files, branches, packages) that the workflow
 * engine matches rules against (spec 1, issue 3). The modules that store those subjects emit
 * them AFTER the write committed, through the outbox (`tx.emitDurable(...)`), with a snapshot of everything a rule's checks
 * may read: the engine never looks at a live request or re-reads the subject.
 *
 * Users: the engine reads the identity events (`user.created`, `user.updated`,
 * `user.status_changed`, `user.renamed`, `user.deleted`) as they are; no extra event is needed.
 *
 * Workflow names (what rules store in `events`):
 * | domain event     | rule entity                          | rule event name                              |
 * |------------------|--------------------------------------|----------------------------------------------|
 * | file.created     | OCA\WorkflowEngine\Entity\File        | OCP\Files\Events\Node\NodeCreatedEvent       |
 * | file.updated     | OCA\WorkflowEngine\Entity\File        | OCP\Files\Events\Node\NodeUpdatedEvent       |
 * | file.renamed     | OCA\WorkflowEngine\Entity\File        | OCP\Files\Events\Node\NodeRenamedEvent       |
 * | file.deleted     | OCA\WorkflowEngine\Entity\File        | OCP\Files\Events\Node\NodeDeletedEvent       |
 * | file.accessed    | OCA\WorkflowEngine\Entity\File        | OCP\Files\Events\Node\NodeTouchedEvent       |
 * | branch.created   | OCA\Devplane\Entity\Branch            | OCA\Devplane\Events\BranchCreatedEvent       |
 * | branch.updated   | OCA\Devplane\Entity\Branch            | OCA\Devplane\Events\BranchUpdatedEvent       |
 * | branch.deleted   | OCA\Devplane\Entity\Branch            | OCA\Devplane\Events\BranchDeletedEvent       |
 * | package.published| OCA\Devplane\Entity\Package           | OCA\Devplane\Events\PackagePublishedEvent    |
 * | package.deleted  | OCA\Devplane\Entity\Package           | OCA\Devplane\Events\PackageDeletedEvent      |
 */

/** What the request that caused the event looked like (null for background work: CLI, jobs). */
export interface RequestSnapshot {
  /** Client address as Express computes it (`req.ip`, trust proxy honoured); may be `::ffff:a.b.c.d`. */
  remoteAddress: string | null;
  /** `User-Agent` header, or null when absent. */
  userAgent: string | null;
  /** `protocol://host/path`, WITHOUT the query string. */
  url: string | null;
  method: string | null;
  /**
   * Whether the request is a file transfer (package registry upload/download, git smart HTTP,
   * attachment download): what Nextcloud's RequestURL value `webdav` means. Computed from `url` when left out.
   */
  fileTransfer?: boolean;
  /** Declared upload size (`OC-Total-Length`, else `Content-Length` of a POST/PUT), when known. */
  declaredSize?: number | null;
}

/** Fields every subject event carries. */
export interface SubjectEventBase {
  /** Numeric id of the user who acted (uploader, pusher, publisher), null for anonymous or system work. */
  actorUserId: string | null;
  /**
   * Numeric ids of the users who own the subject, decided by the emitter: the repository or package
   * owner (or, for an organization, its owners). The engine also runs these users' own rules.
   */
  ownerUserIds: string[];
  request: RequestSnapshot | null;
  /** ISO timestamp of the change; the engine uses "now" when absent. */
  occurredAt?: string;
  /**
   * Set by emitters that may emit the same event again (a retried durable job, e.g. a push's
   * reactions; the outbox of `tx.emitDurable` sets `outbox:<job id>:<index>`): listeners with lasting
   * effects act once per key (the workflow engine records it with the webhook deliveries it queues).
   */
  idempotencyKey?: string;
}

export type StoredFileKind =
  'issue_attachment' | 'comment_attachment' | 'release_attachment' | 'package_file' | 'other';

/** A stored file (attachment or package file), as the File checks see it. */
export interface FileEventPayload extends SubjectEventBase {
  fileId: string;
  kind: StoredFileKind;
  /** File name (basename), after the change for renames. */
  name: string;
  /** Previous name (renames only). */
  oldName?: string;
  /** Size in bytes, null when unknown. */
  size: number | null;
  /** MIME type as stored, null when unknown (the FileMimeType check then guesses from the name). */
  mimeType: string | null;
  repositoryId?: string;
  /** `owner/name` of the repository, for display and webhooks. */
  repository?: string;
  packageId?: string;
  /** `owner/type/name@version`, for display and webhooks. */
  packageRef?: string;
}

export interface BranchEventPayload extends SubjectEventBase {
  repositoryId: string;
  /** `owner/name`. */
  repository: string;
  branch: string;
  /** Commit ids before and after (absent on create/delete respectively). */
  before?: string;
  after?: string;
  forced?: boolean;
}

export interface PackageEventPayload extends SubjectEventBase {
  packageId: string;
  /** Owner account name (user or organization). */
  ownerName: string;
  /** Package type: `generic`, `npm`, ... */
  type: string;
  name: string;
  version: string;
}

export interface SubjectEvents {
  'file.created': FileEventPayload;
  'file.updated': FileEventPayload;
  'file.renamed': FileEventPayload;
  'file.deleted': FileEventPayload;
  'file.accessed': FileEventPayload;
  'branch.created': BranchEventPayload;
  'branch.updated': BranchEventPayload;
  'branch.deleted': BranchEventPayload;
  'package.published': PackageEventPayload;
  'package.deleted': PackageEventPayload;
}

export type SubjectEventName = keyof SubjectEvents;

/**
 * Paths that are file transfers on devplane (Nextcloud's `webdav` in RequestURL checks): the package
 * registry, git smart HTTP, attachment and release-asset downloads and uploads.
 */
export function isFileTransferPath(path: string): boolean {
  return (
    path.startsWith('/api/packages/') ||
    /^\/[^/]+\/[^/]+\.git(\/|$)/.test(path) ||
    /(^|\/)attachments\/[^/]+$/.test(path) ||
    /\/releases\/download\//.test(path) ||
    /\/(issues|comments)\/[^/]+\/assets(\/[^/]+)?$/.test(path) ||
    /\/releases\/[^/]+\/assets(\/[^/]+)?$/.test(path)
  );
}

/** Builds the snapshot of an Express request (call it in the controller, before the work goes async). */
export function requestSnapshot(req: Request, declaredSize?: number | null): RequestSnapshot {
  const host = req.get('host') ?? 'localhost';
  const url = `${req.protocol}://${host}${req.path}`;
  let size = declaredSize;
  if (size === undefined) {
    const total =
      req.get('oc-total-length') ??
      (['POST', 'PUT'].includes(req.method) ? req.get('content-length') : undefined);
    size = total !== undefined && /^\d+$/.test(total) ? Number(total) : null;
  }
  return {
    remoteAddress: req.ip ?? req.socket?.remoteAddress ?? null,
    userAgent: req.get('user-agent') ?? null,
    url,
    method: req.method,
    fileTransfer: isFileTransferPath(req.path),
    declaredSize: size,
  };
}
