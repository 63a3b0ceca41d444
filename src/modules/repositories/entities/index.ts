import { Attachment } from '../attachments/attachment.entity';
import { BranchProtection } from '../branches/branch-protection.entity';
import { RepositoryMirror } from '../mirrors/repository-mirror.entity';
import { Comment } from '../issues/comment.entity';
import { Issue } from '../issues/issue.entity';
import { PullRequest } from '../issues/pull-request.entity';
import { Release } from '../releases/release.entity';
import { IssueLabel, Label } from '../labels/label.entity';
import { PullReview, PullReviewComment } from '../reviews/pull-review.entity';
import { CommitStatus } from '../statuses/commit-status.entity';
import { Milestone } from '../milestones/milestone.entity';
import { LfsObject, LfsRepositoryObject } from '../lfs/lfs-object.entity';
import { Collaborator } from './collaborator.entity';
import { RepositoryRedirect } from './repository-redirect.entity';
import { Repository } from './repository.entity';
import { TeamRepository } from './team-repository.entity';
import { WEBHOOK_ENTITIES } from '../webhooks/webhook.entity';

export const REPOSITORIES_ENTITIES: Function[] = [
  Repository,
  Collaborator,
  TeamRepository,
  RepositoryRedirect,
  Issue,
  Comment,
  PullRequest,
  Release,
  Attachment,
  BranchProtection,
  RepositoryMirror,
  CommitStatus,
  PullReview,
  PullReviewComment,
  Label,
  IssueLabel,
  ...WEBHOOK_ENTITIES,
  Milestone,
  LfsObject,
  LfsRepositoryObject,
];
