import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Transaction } from '../../platform/database/transaction-runner.service';

/**
 * What a user may still own when an administrator deletes the account. Modules that own
 * per-user resources (repositories, packages, ...) register a handler at startup
 * (`onModuleInit() { registry.register({...}) }`):
 * - `count` answers how many the user owns (a non-zero count refuses a delete without purge, 422);
 * - `purge` removes them inside the delete's transaction (use only `tx.manager`).
 * The delete checks kinds in the spec's order: repositories, organizations, packages, then others.
 */
export interface OwnedResourceHandler {
  kind: string;
  /** 422 text when the user still owns some (Gitea's wording). */
  message(userId: string): string;
  count(userId: string, manager: EntityManager): Promise<number>;
  purge(userId: string, tx: Transaction): Promise<void>;
}

const ORDER = ['repositories', 'organizations', 'packages'];

@Injectable()
export class OwnedResourcesRegistry {
  private readonly handlers = new Map<string, OwnedResourceHandler>();

  register(handler: OwnedResourceHandler): void {
    if (this.handlers.has(handler.kind))
      throw new Error(`owned resource kind "${handler.kind}" registered twice`);
    this.handlers.set(handler.kind, handler);
  }

  unregister(kind: string): void {
    this.handlers.delete(kind);
  }

  /** Handlers in check order. */
  list(): OwnedResourceHandler[] {
    const rank = (kind: string) => (ORDER.includes(kind) ? ORDER.indexOf(kind) : ORDER.length);
    return [...this.handlers.values()].sort(
      (a, b) => rank(a.kind) - rank(b.kind) || a.kind.localeCompare(b.kind),
    );
  }
}
