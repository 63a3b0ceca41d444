import { Injectable } from '@nestjs/common';
import { ForbiddenError } from '../../platform/errors/domain-error';
import type { CheckSubject } from './checks/check.types';
import { REGEX_STEPS_PER_EVENT } from './checks/php-regex';
import { matchRules, scopeKey } from './engine/rule-snapshot';
import { RuleStore } from './engine/rule-store.service';
import { DataSource, type EntityManager } from 'typeorm';
import { ENTITY_FILE, OPERATION_ACCESS_CONTROL, SCOPE_ADMIN } from './workflow.constants';
import { OrganizationsService } from '../identity/organizations.service';
import { type FileAccessRequest, UploadPolicy } from '../../platform/uploads/upload-policy';

export type { FileAccessRequest };

export class WorkflowAccessDeniedError extends ForbiddenError {
  constructor(readonly ruleId: number) {
    super('Access denied by access control', 'permission', { code: 'WORKFLOW_ACCESS_DENIED' });
  }
}

/**
 * Nextcloud's files_accesscontrol on devplane (`OCA\FilesAccessControl\Operation`, admin rules
 * only): the attachment and package modules call `assertFileAllowed` BEFORE they accept, replace
 * or serve a file. When any admin rule of that class matches (its checks only: it is a complex
 * operation that chooses its own trigger), the file is refused with a ForbiddenError (403 in each dialect).
 */
@Injectable()
export class WorkflowAccessControlService extends UploadPolicy {
  constructor(
    private readonly store: RuleStore,
    private readonly dataSource: DataSource,
    private readonly organizations: OrganizationsService,
  ) {
    super();
  }

  /**
   * The id of the first matching access-control rule, or null when the file is allowed.
   * `manager`: pass your transaction's EntityManager when you call this inside a transaction.
   */
  async deniedBy(file: FileAccessRequest, manager?: EntityManager): Promise<number | null> {
    const snapshot = await this.store.snapshot(manager);
    const subject: CheckSubject = {
      entity: ENTITY_FILE,
      actorUserId: file.actorUserId,
      request: file.request,
      file: {
        name: file.name,
        mimeType: file.mimeType ?? null,
        size: file.size ?? file.request?.declaredSize ?? null,
      },
      now: Math.floor(Date.now() / 1000),
      regexBudget: { remainingSteps: REGEX_STEPS_PER_EVENT },
    };
    const matches = await matchRules(snapshot, {
      operationClass: OPERATION_ACCESS_CONTROL,
      eventName: null,
      scopes: [scopeKey(SCOPE_ADMIN, '')],
      subject,
      firstOnly: true,
      loadGroups: (userId) => this.organizations.groupsOf(userId, manager),
    });
    return matches[0]?.rule.id ?? null;
  }

  async isFileAllowed(file: FileAccessRequest, manager?: EntityManager): Promise<boolean> {
    return (await this.deniedBy(file, manager)) === null;
  }

  /** Throws WorkflowAccessDeniedError (a ForbiddenError) when an access-control rule matches. */
  override async assertFileAllowed(file: FileAccessRequest, manager?: EntityManager): Promise<void> {
    const ruleId = await this.deniedBy(file, manager);
    if (ruleId !== null) throw new WorkflowAccessDeniedError(ruleId);
  }
}
