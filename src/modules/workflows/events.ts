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
    /** Free-form text of the operation (the rule's `operation` field). */
    message: string;
    actorUserId: string | null;
  };
}
