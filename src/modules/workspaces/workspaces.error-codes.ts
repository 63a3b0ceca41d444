/**
 * The DomainError codes thrown in src/modules/workspaces (issue 32 item 6), by declaration merging into
 * `DomainErrorCodes`. Imported by workspaces.module.ts so it is part of the program.
 */
declare module '../../platform/errors/domain-error' {
  interface DomainErrorCodes {
    // workspaces.service.ts (notFound() and builds), workspace-rules.ts, tasks
    NOT_FOUND: true;
    TEMPLATE_NOT_FOUND: true;
    TEMPLATE_VERSION_NOT_FOUND: true;
    WORKSPACE_NOT_FOUND: true;
    BUILD_NOT_FOUND: true;
    TASK_NOT_FOUND: true;
    INVALID_NAME: true;
    BUILD_ACTIVE: true;
    TASK_STATE: true;
    // template-definition.ts
    INVALID_DEFINITION: true;
    // template-archive.ts, template-files.service.ts
    INVALID_ARCHIVE: true;
    FILE_NOT_FOUND: true;
    UNSUPPORTED_MEDIA_TYPE: true;
    FILE_TOO_LARGE: true;
    INVALID_ACL: true;
    // controllers/build-watch.gateway.ts
    EXPERIMENT_DISABLED: true;
    // controllers/provisioners.controller.ts
    // provisioner-jobs.service.ts
    JOB_NOT_LEASED: true;
    // prebuilds.service.ts
    NOT_PREBUILT: true;
    CLAIM_FAILED: true;
    // workspace-agents.service.ts
    CONNECTION_NOT_FOUND: true;
    // agent-calls.service.ts
    CALL_NOT_TAKEN: true;
  }
}
export {};
