import { Repositories1795473797497 } from './1795473797497-Repositories';
import { IssuesReleasesPulls1795501354079 } from './1795501354079-IssuesReleasesPulls';
import { Attachments1795502004244 } from './1795502004244-Attachments';
import { BranchProtections1795729709160 } from './1795729709160-BranchProtections';
import { RepositoryMirrors1795731934274 } from './1795731934274-RepositoryMirrors';
import { PullDiffStats1795759950808 } from './1795759950808-PullDiffStats';
import { ScaleIndexes1796676977232 } from './1796676977232-ScaleIndexes';
import { StatusesReviews1796678434029 } from './1796678434029-StatusesReviews';
import { Labels1796680223359 } from './1796680223359-Labels';
import { Webhooks1796690175951 } from './1796690175951-Webhooks';
import { MilestonesLfs1796689603235 } from './1796689603235-MilestonesLfs';

export const REPOSITORIES_MIGRATIONS: Function[] = [
  Repositories1795473797497,
  IssuesReleasesPulls1795501354079,
  Attachments1795502004244,
  BranchProtections1795729709160,
  RepositoryMirrors1795731934274,
  PullDiffStats1795759950808,
  ScaleIndexes1796676977232,
  StatusesReviews1796678434029,
  Labels1796680223359,
  MilestonesLfs1796689603235,
  Webhooks1796690175951,
];
