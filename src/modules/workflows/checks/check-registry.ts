import type { CheckDefinition } from './check.types';
import { FileSizeCheck } from './file-size.check';
import { RequestRemoteAddressCheck } from './request-remote-address.check';
import { RequestTimeCheck } from './request-time.check';
import { FileMimeTypeCheck, FileNameCheck, RequestURLCheck, RequestUserAgentCheck } from './string-checks';
import { UserGroupMembershipCheck } from './user-group-membership.check';

/** The built-in checks, by class name (the validator and the catalogue read the same list). */
export const CHECKS: readonly CheckDefinition[] = [
  FileNameCheck,
  FileMimeTypeCheck,
  FileSizeCheck,
  RequestRemoteAddressCheck,
  RequestTimeCheck,
  RequestURLCheck,
  RequestUserAgentCheck,
  UserGroupMembershipCheck,
];

export const CHECKS_BY_ID: ReadonlyMap<string, CheckDefinition> = new Map(
  CHECKS.map((check) => [check.id, check]),
);
