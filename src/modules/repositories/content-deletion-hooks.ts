import { Injectable } from '@nestjs/common';
import type { Transaction } from '../../platform/database/transaction-runner.service';

/** What is being deleted: a whole repository, or a release, issue or comment of one. */
export type ContentScope = { kind: 'repository' | 'release' | 'issue' | 'comment'; id: string };

export type ContentDeletionHook = (tx: Transaction, scope: ContentScope) => Promise<void>;

/**
 * Code that hangs things off repository content (attachments) registers here; the hooks run inside
 * the transaction that deletes the repository, release, issue or comment, so rows and blob
 * clean-up jobs go together with the delete or not at all.
 */
@Injectable()
export class ContentDeletionHooks {
  private readonly hooks = new Map<string, ContentDeletionHook>();

  register(name: string, hook: ContentDeletionHook): void {
    this.hooks.set(name, hook);
  }

  unregister(name: string): void {
    this.hooks.delete(name);
  }

  async run(tx: Transaction, scope: ContentScope): Promise<void> {
    for (const hook of this.hooks.values()) await hook(tx, scope);
  }
}
