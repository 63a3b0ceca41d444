/** Events emitted by the workflow engine. NotificationsModule turns `workflow.notify_owner` into an inbox item. */
export interface WorkflowEvents {
  'workflow.notify_owner': {
    ruleId: string;
    ruleName: string;
    /** Numeric id of the rule's owner (user scope). */
    ownerUserId: string;
    entity: string;
    event: string;
    /** Human-readable subject, e.g. the file name or branch name. */
    subject: string;
    /** Free-form text of the operation (the rule's `operation` field; the `inscription` when it is Nextcloud's JSON). */
    message: string;
    actorUserId: string | null;
    /** Nextcloud-style sentence, e.g. "alice created report.pdf". */
    displayText?: string;
    /** The devplane domain event that triggered the rule (`file.created`, ...). */
    domainEvent?: string;
  };
  /** A rule was created, updated or deleted (after commit). Caches listen; also sent over the cluster bus. */
  'workflow.rules_changed': { ruleId: number; action: 'created' | 'updated' | 'deleted' };
}

declare module '../../platform/events/event-map' {
  interface DomainEventMap extends WorkflowEvents {}
}
