import { Inject, Injectable, Logger } from '@nestjs/common';
import { WORKFLOWS_CONFIG, type WorkflowsConfig } from '../workflows.config';
import { UsersService } from '../../identity/users.service';
import { TransactionRunner } from '../../../platform/database/transaction-runner.service';
import { EventBus, OnDomainEvent } from '../../../platform/events/event-bus.service';
import type { DomainEventMap } from '../../../platform/events/event-map';
import type {
  BranchEventPayload,
  FileEventPayload,
  PackageEventPayload,
  RequestSnapshot,
  SubjectEventBase,
} from '../../../platform/events/subject-events';
import type { CheckSubject } from '../checks/check.types';
import { REGEX_STEPS_PER_EVENT } from '../checks/php-regex';
import { WebhookDeliveries } from '../operations/webhook-deliveries.service';
import { WorkflowEventReceiptsRepository } from './workflow-event-receipts.repository';
import {
  EVENT_BY_DOMAIN_EVENT,
  type EngineEventInput,
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
  payload: EngineEventInput['payload'];
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
    private readonly transactions: TransactionRunner,
    private readonly receipts: WorkflowEventReceiptsRepository,
    @Inject(WORKFLOWS_CONFIG) private readonly config: WorkflowsConfig,
  ) {}

  /** The acting user's groups for UserGroupMembership: organizations, `org/team`, `admin`. */
  readonly loadGroups = (userId: string): Promise<Set<string>> => this.organizations.groupsOf(userId);

  @OnDomainEvent('file.created')
  onFileCreated(p: FileEventPayload): Promise<void> {
    return this.handle({ name: 'file.created', payload: p });
  }
  @OnDomainEvent('file.updated')
  onFileUpdated(p: FileEventPayload): Promise<void> {
    return this.handle({ name: 'file.updated', payload: p });
  }
  @OnDomainEvent('file.renamed')
  onFileRenamed(p: FileEventPayload): Promise<void> {
    return this.handle({ name: 'file.renamed', payload: p });
  }
  @OnDomainEvent('file.deleted')
  onFileDeleted(p: FileEventPayload): Promise<void> {
    return this.handle({ name: 'file.deleted', payload: p });
  }
  @OnDomainEvent('file.accessed')
  onFileAccessed(p: FileEventPayload): Promise<void> {
    return this.handle({ name: 'file.accessed', payload: p });
  }
  @OnDomainEvent('branch.created')
  onBranchCreated(p: BranchEventPayload): Promise<void> {
    return this.handle({ name: 'branch.created', payload: p });
  }
  @OnDomainEvent('branch.updated')
  onBranchUpdated(p: BranchEventPayload): Promise<void> {
    return this.handle({ name: 'branch.updated', payload: p });
  }
  @OnDomainEvent('branch.deleted')
  onBranchDeleted(p: BranchEventPayload): Promise<void> {
    return this.handle({ name: 'branch.deleted', payload: p });
  }
  @OnDomainEvent('package.published')
  onPackagePublished(p: PackageEventPayload): Promise<void> {
    return this.handle({ name: 'package.published', payload: p });
  }
  @OnDomainEvent('package.deleted')
  onPackageDeleted(p: PackageEventPayload): Promise<void> {
    return this.handle({ name: 'package.deleted', payload: p });
  }
  @OnDomainEvent('user.created')
  onUserCreated(p: DomainEventMap['user.created']): Promise<void> {
    return this.handle({ name: 'user.created', payload: p });
  }
  @OnDomainEvent('user.updated')
  onUserUpdated(p: DomainEventMap['user.updated']): Promise<void> {
    return this.handle({ name: 'user.updated', payload: p });
  }
  @OnDomainEvent('user.status_changed')
  onUserStatusChanged(p: DomainEventMap['user.status_changed']): Promise<void> {
    return this.handle({ name: 'user.status_changed', payload: p });
  }
  @OnDomainEvent('user.renamed')
  onUserRenamed(p: DomainEventMap['user.renamed']): Promise<void> {
    return this.handle({ name: 'user.renamed', payload: p });
  }
  @OnDomainEvent('user.deleted')
  onUserDeleted(p: DomainEventMap['user.deleted']): Promise<void> {
    return this.handle({ name: 'user.deleted', payload: p });
  }

  /**
   * Never throws for an event without an idempotency key: a failing rule must not break the emitter's
   * work. A keyed event comes from a durable job that runs again: its failure is thrown, so the job
   * is retried (and the key makes the retry act once).
   */
  async handle(input: EngineEventInput): Promise<void> {
    try {
      await this.run(input);
    } catch (error) {
      this.logger.error({ err: error, event: input.name }, 'workflow rules failed for an event');
      if (idempotencyKeyOf(input)) throw error;
    }
  }

  private async run(input: EngineEventInput): Promise<void> {
    const domainEvent = input.name;
    const mapping = EVENT_BY_DOMAIN_EVENT.get(domainEvent);
    if (!mapping) return;
    const snapshot = await this.store.snapshot();
    const classes = snapshot.eventClasses.get(mapping.event.eventName);
    if (!classes) return; // fast path: no rule listens to this event
    // An event emitted again (a retried push job) acts once: its key is claimed with the deliveries.
    const key = idempotencyKeyOf(input);
    if (key && (await this.receipts.seen(key))) return;
    const event = await this.normalize(input, mapping.entity.id, mapping.event.eventName);
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
    if (deliveries.length > 0 || key) await this.enqueueDeliveries(deliveries, key);
  }

  /**
   * The event's webhook deliveries as durable jobs, all in one transaction. Subject events come
   * through the outbox (`tx.emitDurable`, platform/jobs/event-outbox.service.ts) or a durable job
   * (pushes) with an idempotency key: a crash before this transaction commits leaves the event's
   * dispatch job, which emits it again. A keyed event claims its key in the same transaction:
   * claimed before, nothing is queued (the event is delivered once however often it is emitted).
   */
  private async enqueueDeliveries(deliveries: WebhookDelivery[], key: string | undefined): Promise<void> {
    try {
      await this.transactions.run(async (tx) => {
        // A key claimed meanwhile (the same event handled twice at once) queues nothing.
        if (key && !(await this.receipts.claim(tx.manager, key))) return;
        for (const delivery of deliveries) await this.webhooks.enqueue(tx.manager, delivery);
      });
    } catch (error) {
      this.logger.error(
        { err: error, ruleIds: deliveries.map((d) => d.ruleId) },
        'workflow webhook deliveries could not be queued',
      );
      if (key) throw error;
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
      const {
        request: _request,
        idempotencyKey: _key,
        ...subject
      } = event.payload as typeof event.payload & {
        request?: unknown;
        idempotencyKey?: string;
      };
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
    input: EngineEventInput,
    entity: string,
    eventName: string,
  ): Promise<Omit<EngineEvent, 'displayText'>> {
    const base = { domainEvent: input.name, entity, eventName, payload: input.payload };
    switch (input.name) {
      case 'file.created':
      case 'file.updated':
      case 'file.renamed':
      case 'file.deleted':
      case 'file.accessed': {
        const p = input.payload;
        return {
          ...subjectEvent(base, p),
          file: { name: p.name, mimeType: p.mimeType, size: p.size ?? p.request?.declaredSize ?? null },
          subject: p.name,
        };
      }
      case 'branch.created':
      case 'branch.updated':
      case 'branch.deleted': {
        const p = input.payload;
        return { ...subjectEvent(base, p), subject: `${p.repository}:${p.branch}` };
      }
      case 'package.published':
      case 'package.deleted': {
        const p = input.payload;
        return { ...subjectEvent(base, p), subject: `${p.ownerName}/${p.name}@${p.version}` };
      }
      // Identity events: the subject user owns the event; the actor is whoever acted, when known.
      case 'user.created':
        return this.userEvent(base, input.payload.userId, input.payload.username, input.payload.createdBy);
      case 'user.deleted':
        return this.userEvent(base, input.payload.userId, input.payload.username, input.payload.actorId);
      case 'user.renamed':
        return this.userEvent(base, input.payload.userId, input.payload.to, null);
      case 'user.status_changed':
        // `to` is the new status here, not a name.
        return this.userEvent(base, input.payload.userId, undefined, input.payload.actorId);
      case 'user.updated':
        return this.userEvent(base, input.payload.userId, undefined, null);
    }
  }

  private async userEvent(
    base: Pick<EngineEvent, 'domainEvent' | 'entity' | 'eventName' | 'payload'>,
    userId: string,
    name: string | undefined,
    actorId: string | null,
  ): Promise<Omit<EngineEvent, 'displayText'>> {
    const user = name ?? (await this.users.findById(userId))?.name ?? userId;
    return {
      ...base,
      actorUserId: actorId ?? null,
      ownerUserIds: [userId],
      request: null,
      subject: user,
      occurredAt: new Date().toISOString(),
    };
  }
}

/** The emitter's idempotency key of a subject event (identity events carry none). */
function idempotencyKeyOf(input: EngineEventInput): string | undefined {
  return 'idempotencyKey' in input.payload ? input.payload.idempotencyKey : undefined;
}

/** What every subject event (files, branches, packages) gives the engine alike: actor, owners, request, time. */
function subjectEvent<B>(base: B, p: SubjectEventBase) {
  return {
    ...base,
    actorUserId: p.actorUserId,
    ownerUserIds: p.ownerUserIds ?? [],
    request: p.request ?? null,
    occurredAt: timestamp(p.occurredAt),
  };
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
