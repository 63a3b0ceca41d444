import type { User } from '../../../src/modules/identity/entities/user.entity';
import type { Comment } from '../../../src/modules/repositories/issues/comment.entity';
import type { Issue } from '../../../src/modules/repositories/issues/issue.entity';
import {
  issueTitleProblem,
  mayEditComment,
  mayWriteIssue,
} from '../../../src/modules/repositories/issues/issues.service';

const alice = { id: '1', isAdmin: false } as User;
const siteAdmin = { id: '2', isAdmin: true } as User;
const issueBy = (posterId: string) => ({ posterId }) as Issue;
const commentBy = (posterId: string) => ({ posterId }) as Comment;

describe('repositories: issue titles', () => {
  it('requires a non-blank title of at most 255 characters (code points, not UTF-16 units)', () => {
    expect(issueTitleProblem('   ')).toBe('[Title]: Required');
    expect(issueTitleProblem('a'.repeat(256))).toBe('[Title]: MaxSize');
    expect(issueTitleProblem('a'.repeat(255))).toBeNull();
    expect(issueTitleProblem('😀'.repeat(255))).toBeNull();
  });
});

describe('repositories: who may change issues and comments', () => {
  it('lets the poster or a writer change an issue, never an anonymous caller', () => {
    expect(mayWriteIssue(alice, issueBy('1'), 'read')).toBe(true);
    expect(mayWriteIssue(alice, issueBy('9'), 'read')).toBe(false);
    expect(mayWriteIssue(alice, issueBy('9'), 'write')).toBe(true);
    expect(mayWriteIssue(null, issueBy('9'), 'admin')).toBe(false);
  });

  it('lets the poster, a repository administrator, or a writing site administrator edit a comment', () => {
    expect(mayEditComment(alice, commentBy('1'), 'read')).toBe(true);
    expect(mayEditComment(alice, commentBy('9'), 'write')).toBe(false);
    expect(mayEditComment(alice, commentBy('9'), 'admin')).toBe(true);
    expect(mayEditComment(siteAdmin, commentBy('9'), 'write')).toBe(true);
    expect(mayEditComment(siteAdmin, commentBy('9'), 'read')).toBe(false);
  });
});
