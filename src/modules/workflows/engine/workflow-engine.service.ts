import { Inject, Injectable, Logger } from '@nestjs/common';
import { WORKFLOWS_CONFIG, type WorkflowsConfig } from '../workflows.config';
import { UsersService } from '../../identity/users.service';
import { DataSource } from 'typeorm';
import { EventBus, OnDomainEvent } from '../../../platform/events/event-bus.service';
import type { DomainEventMap } from '../../../platform/events/event-map';
import type {
  BranchEventPayload,
  FileEventPayload,
  PackageEventPayload,
  RequestSnapshot,
} from '../../../platform/events/subject-events';
import type { CheckSubject } from '../checks/check.types';
import { REGEX_STEPS_PER_EVENT } from '../checks/php-regex';
import { WebhookDeliveries } from '../operations/webhook-deliveries.service';
import {
  EVENT_BY_DOMAIN_EVENT,
  OPERATIONS_BY_ID,
  parseWebhookConfig,
  type EngineEventName,
} from '../workflow-registry';
import { OPERATION_NOTIFICATION, OPERATION_WEBHOOK, SCOPE_ADMIN, SCOPE_USER } from '../workflow.constants';
import { matchRules, scopeKey, type ParsedRule } from './rule-snapshot';
import { RuleStore } from './rule-store.service';
import { OrganizationsService } from '../../identity/organizations.service';

/** A webhook delivery of one matched rule, queued once all rules of the event ran. */
interface WebhookDelivery {
  ruleId: number;
  url: string;
  secret?: string;
  body: unknown;
}

/** One event, normalized for the matcher and the operations. */
export interface EngineEvent {
  domainEvent: EngineEventName;
  entity: string;
  eventName: string;
  actorUserId: string | null;
  ownerUserIds: string[];
  request: RequestSnapshot | null;
  file?: { name: string; mimeType: string | null; size: number | null };
  /** Human-readable subject (file name, owner/repo:branch, package@version, username). */
  subject: string;
  displayText: string;
  occurredAt: string;
  payload: unknown;
}

/**
 * The rule matcher at event time (Nextcloud's getAllConfiguredEvents + RuleMatcher): an event
 * whose rule event name no rule lists returns at once; otherwise, for each operation class that
 * listens to it, the rules of the admin scope, of the acting user and of the subject's owners are
 * matched (event listed + all checks pass) and the operation runs for each match.
 */
@Injectable()
export class WorkflowEngine {
  private readonly logger = new Logger(WorkflowEngine.name);

  constructor(
    private readonly store: RuleStore,
    private readonly events: EventBus,
    private readonly webhooks: WebhookDeliveries,
    private readonly users: UsersService,
    private readonly organizations: OrganizationsService,
    private readonly dataSource: DataSource,
    @Inject(WORKFLOWS_CONFIG) private readonly config: WorkflowsConfig,
  ) {}

  /** The acting user's groups for UserGroupMembership: organizations, `org/team`, `admin`. */
  readonly loadGroups = (userId: string): Promise<Set<string>> => this.organizations.groupsOf(userId);

  @OnDomainEvent('file.created')
  onFileCreated(p: FileEventPayload): Promise<void> {
    return this.handle('file.created', p);
  }
  @OnDomainEvent('file.updated')
  onFileUpdated(p: FileEventPayload): Promise<void> {
    return this.handle('file.updated', p);
  }
  @OnDomainEvent('file.renamed')
  onFileRenamed(p: FileEventPayload): Promise<void> {
    return this.handle('file.renamed', p);
  }
  @OnDomainEvent('file.deleted')
  onFileDeleted(p: FileEventPayload): Promise<void> {
    return this.handle('file.deleted', p);
  }
  @OnDomainEvent('file.accessed')
  onFileAccessed(p: FileEventPayload): Promise<void> {
    return this.handle('file.accessed', p);
  }
  @OnDomainEvent('branch.created')
  onBranchCreated(p: BranchEventPayload): Promise<void> {
    return this.handle('branch.created', p);
  }
  @OnDomainEvent('branch.updated')
  onBranchUpdated(p: BranchEventPayload): Promise<void> {
    return this.handle('branch.updated', p);
  }
  @OnDomainEvent('branch.deleted')
  onBranchDeleted(p: BranchEventPayload): Promise<void> {
    return this.handle('branch.deleted', p);
  }
  @OnDomainEvent('package.published')
  onPackagePublished(p: PackageEventPayload): Promise<void> {
    return this.handle('package.published', p);
  }
  @OnDomainEvent('package.deleted')
  onPackageDeleted(p: PackageEventPayload): Promise<void> {
    return this.handle('package.deleted', p);
  }
  @OnDomainEvent('user.created')
  onUserCreated(p: DomainEventMap['user.created']): Promise<void> {
    return this.handle('user.created', p);
  }
  @OnDomainEvent('user.updated')
  onUserUpdated(p: DomainEventMap['user.updated']): Promise<void> {
    return this.handle('user.updated', p);
  }
  @OnDomainEvent('user.status_changed')
  onUserStatusChanged(p: DomainEventMap['user.status_changed']): Promise<void> {
    return this.handle('user.status_changed', p);
  }
  @OnDomainEvent('user.renamed')
  onUserRenamed(p: DomainEventMap['user.renamed']): Promise<void> {
    return this.handle('user.renamed', p);
  }
  @OnDomainEvent('user.deleted')
  onUserDeleted(p: DomainEventMap['user.deleted']): Promise<void> {
    return this.handle('user.deleted', p);
  }

  /** Never throws: a failing rule must not break the emitter's work. */
  async handle(domainEvent: EngineEventName, payload: unknown): Promise<void> {
    try {
      await this.run(domainEvent, payload);
    } catch (error) {
      this.logger.error({ err: error, event: domainEvent }, 'workflow rules failed for an event');
    }
  }

  private async run(domainEvent: EngineEventName, payload: unknown): Promise<void> {
    const mapping = EVENT_BY_DOMAIN_EVENT.get(domainEvent);
    if (!mapping) return;
    const snapshot = await this.store.snapshot();
    const classes = snapshot.eventClasses.get(mapping.event.eventName);
    if (!classes) return; // fast path: no rule listens to this event
    const event = await this.normalize(domainEvent, payload, mapping.entity.id, mapping.event.eventName);
    const text = mapping.event.text;
    const matches: ParsedRule[] = [];
    const subject: CheckSubject = {
      entity: event.entity,
      actorUserId: event.actorUserId,
      request: event.request,
      file: event.file,
      now: Math.floor(Date.parse(event.occurredAt) / 1000),
      regexBudget: { remainingSteps: REGEX_STEPS_PER_EVENT },
    };
    for (const operationClass of classes) {
      const operation = OPERATIONS_BY_ID.get(operationClass);
      if (!operation || operation.complex) continue; // access control is called by the file-storing modules
      const scopes: string[] = [];
      if (operation.scopes.includes(SCOPE_ADMIN)) scopes.push(scopeKey(SCOPE_ADMIN, ''));
      if (operation.scopes.includes(SCOPE_USER)) {
        // With the user scope disabled, Nextcloud drops the acting user's scope but keeps the owners' (scope expansion).
        const actor = this.config.userScopeDisabled ? null : event.actorUserId;
        for (const userId of [actor, ...event.ownerUserIds])
          if (userId) scopes.push(scopeKey(SCOPE_USER, userId));
      }
      matches.push(
        ...(await matchRules(snapshot, {
          operationClass,
          eventName: event.eventName,
          scopes,
          subject,
          loadGroups: this.loadGroups,
        })),
      );
    }
    if (matches.length === 0) return;
    // The actor's name is looked up only when some rule matched (matching itself reads no database).
    const actor = event.actorUserId
      ? ((await this.users.findById(event.actorUserId))?.name ?? 'Someone')
      : 'Someone';
    // A replacer function: names may contain `$&`, `$'`… which a replacement string would expand.
    const displayText = text.replace('%actor', () => actor).replace('%subject', () => event.subject);
    const deliveries: WebhookDelivery[] = [];
    for (const match of matches) {
      try {
        const delivery = await this.execute(match, { ...event, displayText });
        if (delivery) deliveries.push(delivery);
      } catch (error) {
        this.logger.error({ err: error, ruleId: match.rule.id }, 'workflow operation failed');
      }
    }
    if (deliveries.length > 0) await this.enqueueDeliveries(deliveries);
  }

  /**
   * The event's webhook deliveries as durable jobs, all in one transaction. Subject events are
   * emitted after the causing write committed (house rule 5) and the emitter awaits this listener,
   * so the jobs are committed before the causing request answers; from then on a crash cannot
   * lose them (the job queue retries them after a restart).
   */
  private async enqueueDeliveries(deliveries: WebhookDelivery[]): Promise<void> {
    try {
      await this.dataSource.transaction(async (manager) => {
        for (const delivery of deliveries) await this.webhooks.enqueue(manager, delivery);
      });
    } catch (error) {
      this.logger.error(
        { err: error, ruleIds: deliveries.map((d) => d.ruleId) },
        'workflow webhook deliveries could not be queued',
      );
    }
  }

  private async execute(match: ParsedRule, event: EngineEvent): Promise<WebhookDelivery | undefined> {
    const rule = match.rule;
    if (rule.class === OPERATION_NOTIFICATION) {
      // Nextcloud's flow_notifications: the owner is not notified about their own action.
      if (rule.scopeUserId === '' || rule.scopeUserId === event.actorUserId) return undefined;
      // Awaited: the inbox item exists when the subject event's handling is done (and errors are logged here).
      await this.events.emitAsync('workflow.notify_owner', {
        ruleId: String(rule.id),
        ruleName: rule.name,
        ownerUserId: rule.scopeUserId,
        entity: event.entity,
        event: event.eventName,
        subject: event.subject,
        message: inscription(rule.operation),
        actorUserId: event.actorUserId,
        displayText: event.displayText,
        domainEvent: event.domainEvent,
      });
      return undefined;
    }
    if (rule.class === OPERATION_WEBHOOK) {
      let config: { url: string; secret?: string };
      try {
        // Private addresses are refused again at connect time by the sender.
        config = parseWebhookConfig(rule.operation, true);
      } catch {
        return undefined;
      }
      const { request: _request, ...subject } = (event.payload ?? {}) as Record<string, unknown>;
      return {
        ruleId: rule.id,
        url: config.url,
        secret: config.secret,
        body: {
          event: event.eventName,
          domainEvent: event.domainEvent,
          entity: event.entity,
          rule: {
            id: rule.id,
            name: rule.name,
            scope_type: rule.scopeType,
            scope_actor_id: rule.scopeActorName,
          },
          subject,
          displayText: event.displayText,
          actor: event.actorUserId ? { id: event.actorUserId } : null,
          occurredAt: event.occurredAt,
        },
      };
    }
    return undefined;
  }

  private async normalize(
    domainEvent: EngineEventName,
    payload: unknown,
    entity: string,
    eventName: string,
  ): Promise<Omit<EngineEvent, 'displayText'>> {
    const base = { domainEvent, entity, eventName, payload };
    let event: Omit<EngineEvent, 'displayText'>;
    if (domainEvent.startsWith('file.')) {
      const p = payload as FileEventPayload;
      event = {
        ...base,
        actorUserId: p.actorUserId,
        ownerUserIds: p.ownerUserIds ?? [],
        request: p.request ?? null,
        file: { name: p.name, mimeType: p.mimeType, size: p.size ?? p.request?.declaredSize ?? null },
        subject: p.name,
        occurredAt: timestamp(p.occurredAt),
      };
    } else if (domainEvent.startsWith('branch.')) {
      const p = payload as BranchEventPayload;
      event = {
        ...base,
        actorUserId: p.actorUserId,
        ownerUserIds: p.ownerUserIds ?? [],
        request: p.request ?? null,
        subject: `${p.repository}:${p.branch}`,
        occurredAt: timestamp(p.occurredAt),
      };
    } else if (domainEvent.startsWith('package.')) {
      const p = payload as PackageEventPayload;
      event = {
        ...base,
        actorUserId: p.actorUserId,
        ownerUserIds: p.ownerUserIds ?? [],
        request: p.request ?? null,
        subject: `${p.ownerName}/${p.name}@${p.version}`,
        occurredAt: timestamp(p.occurredAt),
      };
    } else {
      // Identity events: the subject user owns the event; the actor is whoever acted, when known.
      const p = payload as {
        userId: string;
        username?: string;
        to?: string;
        createdBy?: string | null;
        actorId?: string | null;
      };
      // `to` is the new name only for user.renamed (user.status_changed's `to` is the new status).
      const named = domainEvent === 'user.renamed' ? p.to : p.username;
      const user = named ?? (await this.users.findById(p.userId))?.name ?? p.userId;
      event = {
        ...base,
        actorUserId: p.createdBy ?? p.actorId ?? null,
        ownerUserIds: [p.userId],
        request: null,
        subject: user,
        occurredAt: new Date().toISOString(),
      };
    }
    return event;
  }
}

/** The event's time when the emitter gave a valid one, else now (RequestTime must never see NaN). */
function timestamp(occurredAt: string | undefined): string {
  const time = occurredAt === undefined ? NaN : Date.parse(occurredAt);
  return new Date(Number.isFinite(time) ? time : Date.now()).toISOString();
}

/** Nextcloud's flow_notifications stores `{"inscription":"..."}`; any other text is used as it is. */
export function inscription(operation: string): string {
  try {
    const data = JSON.parse(operation) as unknown;
    if (
      data &&
      typeof data === 'object' &&
      typeof (data as { inscription?: unknown }).inscription === 'string'
    ) {
      return (data as { inscription: string }).inscription;
    }
  } catch {
    // not JSON
  }
  return operation;
}
