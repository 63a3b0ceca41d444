import { Injectable } from '@nestjs/common';
import { SecretBox } from '../../../platform/crypto/secret-box';
import { InvalidError, NotFoundError } from '../../../platform/errors/domain-error';
import { compileBranchFilter } from './branch-filter';
import { DELIVERED_HOOK_TYPES, GITEA_HOOK_TYPES, hookEventFlags } from './webhook-events';
import type { HookContentType, Webhook } from './webhook.entity';
import { type HookScope, WebhooksRepository } from './webhooks.repository';
import './webhooks.error-codes';

export interface CreateHookInput {
  type: string;
  config: Record<string, string>;
  events?: string[];
  branchFilter?: string;
  authorizationHeader?: string;
  active?: boolean;
}

export interface EditHookInput {
  config?: Record<string, string>;
  events?: string[];
  branchFilter?: string;
  authorizationHeader?: string;
  active?: boolean;
}

const SEAL_SECRET = 'webhook-secret';
const SEAL_AUTHORIZATION = 'webhook-authorization';

export function hookNotFound(): NotFoundError {
  return new NotFoundError("The target couldn't be found.", { code: 'HOOK_NOT_FOUND' });
}

/**
 * Repository and organization webhooks (Gitea's routers/api/v1/utils/hook.go): the checks and texts
 * of addHook/editHook, the secret and authorization header sealed at rest. Who may call is the
 * controllers' business (repository admin, organization owner).
 */
@Injectable()
export class WebhooksService {
  constructor(
    private readonly rows: WebhooksRepository,
    private readonly secrets: SecretBox,
  ) {}

  private seal(value: string, context: string): string {
    return value ? this.secrets.seal(value, context) : '';
  }

  private unseal(sealed: string, context: string): string {
    return sealed ? this.secrets.openText(sealed, context) : '';
  }

  page(scope: HookScope, offset: number, limit: number) {
    return this.rows.page(scope, offset, limit);
  }

  async require(scope: HookScope, id: string): Promise<Webhook> {
    const hook = await this.rows.find(scope, id);
    if (!hook) throw hookNotFound();
    return hook;
  }

  private checkUrl(url: string): void {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new InvalidError('Invalid url', { code: 'HOOK_URL' });
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
      throw new InvalidError('Invalid url', { code: 'HOOK_URL' });
  }

  private contentType(value: string): HookContentType {
    if (value !== 'json' && value !== 'form')
      throw new InvalidError('Invalid content type', { code: 'HOOK_CONTENT_TYPE' });
    return value;
  }

  private checkBranchFilter(filter: string | undefined): void {
    if (filter && compileBranchFilter(filter) === null)
      throw new InvalidError('[BranchFilter]: GlobPattern', { code: 'HOOK_CONFIG' });
  }

  async create(scope: HookScope, input: CreateHookInput): Promise<Webhook> {
    if (!GITEA_HOOK_TYPES.includes(input.type))
      throw new InvalidError(`Invalid hook type: ${input.type}`, { code: 'HOOK_TYPE' });
    if (!DELIVERED_HOOK_TYPES.includes(input.type))
      throw new InvalidError(
        `Invalid hook type: ${input.type} (devplane delivers only the gitea and gogs types)`,
        { code: 'HOOK_TYPE' },
      );
    for (const name of ['url', 'content_type'])
      if (input.config[name] === undefined)
        throw new InvalidError(`Missing config option: ${name}`, { code: 'HOOK_CONFIG' });
    const contentType = this.contentType(input.config.content_type!);
    this.checkUrl(input.config.url!);
    this.checkBranchFilter(input.branchFilter);
    const row = await this.rows.insert({
      repositoryId: 'repositoryId' in scope ? scope.repositoryId : null,
      ownerId: 'ownerId' in scope ? scope.ownerId : null,
      type: input.type,
      url: input.config.url!,
      contentType,
      events: hookEventFlags(input.events),
      branchFilter: input.branchFilter ?? '',
      active: input.active ?? false,
    });
    // Sealed with the row's id in the context: a sealed value copied to another hook does not open.
    await this.rows.update(row.id, {
      secretSealed: this.seal(input.config.secret ?? '', `${SEAL_SECRET}:${row.id}`),
      authorizationSealed: this.seal(input.authorizationHeader ?? '', `${SEAL_AUTHORIZATION}:${row.id}`),
    });
    return (await this.rows.findById(row.id))!;
  }

  async edit(scope: HookScope, id: string, input: EditHookInput): Promise<Webhook> {
    const hook = await this.require(scope, id);
    const changes: Partial<Webhook> = {};
    if (input.config) {
      if (input.config.url !== undefined) {
        this.checkUrl(input.config.url);
        changes.url = input.config.url;
      }
      if (input.config.content_type !== undefined)
        changes.contentType = this.contentType(input.config.content_type);
      if (input.config.secret !== undefined)
        changes.secretSealed = this.seal(input.config.secret, `${SEAL_SECRET}:${hook.id}`);
    }
    this.checkBranchFilter(input.branchFilter);
    // As Gitea's editHook: the events, the branch filter and the authorization header are replaced
    // every time (no events means `push`).
    changes.events = hookEventFlags(input.events);
    changes.branchFilter = input.branchFilter ?? '';
    changes.authorizationSealed = this.seal(
      input.authorizationHeader ?? '',
      `${SEAL_AUTHORIZATION}:${hook.id}`,
    );
    if (input.active !== undefined) changes.active = input.active;
    await this.rows.update(hook.id, changes);
    return (await this.rows.findById(hook.id))!;
  }

  async delete(scope: HookScope, id: string): Promise<void> {
    const hook = await this.require(scope, id);
    await this.rows.delete(hook.id);
  }

  /** The opened secret and header of a stored hook (context includes its id). */
  secretsOf(hook: Webhook): { secret: string; authorization: string } {
    return {
      secret: this.unseal(hook.secretSealed, `${SEAL_SECRET}:${hook.id}`),
      authorization: this.unseal(hook.authorizationSealed, `${SEAL_AUTHORIZATION}:${hook.id}`),
    };
  }
}
