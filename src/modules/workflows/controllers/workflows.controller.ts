import { Body, Delete, Get, Inject, Param, Post, Put, UseGuards } from '@nestjs/common';
import { ForbiddenError } from '../../../platform/errors/domain-error';
import { WORKFLOWS_CONFIG, type WorkflowsConfig } from '../workflows.config';
import { ApiBody, ApiOperation, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import { ApiOcsOkResponse } from '../../../api/ocs/api-ocs-ok-response.decorator';
import { OcsController } from '../../../api/ocs/ocs-controller.decorator';
import { Authenticated, CurrentPrincipal } from '../../../api/access/access.decorators';
import type { Principal } from '../../../api/access/principal';
import { CreateWorkflowDto } from '../dto/create-workflow.dto';
import { UpdateWorkflowDto } from '../dto/update-workflow.dto';
import { WorkflowRuleDto } from '../dto/workflow-rule.dto';
import { PasswordConfirmationGuard } from '../password-confirmation.guard';
import { SCOPE_ADMIN, SCOPE_USER } from '../workflow.constants';
import {
  WorkflowRulesService,
  type RuleJson,
  type RuleScope,
  type ScopedRuleJson,
} from '../workflow-rules.service';

const GLOBAL: RuleScope = { type: SCOPE_ADMIN, userId: '' };

/**
 * Token scopes (issue 11.4; workflows README "Token scopes"): global rules are site configuration —
 * Gitea category `admin`, Coder `deployment_config` read/update; user rules are the caller's personal
 * settings — Gitea category `user`, Coder `user` read_personal/update_personal (as Coder's SSH key and
 * appearance routes). Passwords, sessions and `all`/`coder:all` tokens pass.
 */
const GLOBAL_READ = {
  admin: true,
  scopes: ['admin'],
  tokenScope: { type: 'deployment_config', action: 'read' },
};
const GLOBAL_WRITE = {
  admin: true,
  scopes: ['admin'],
  tokenScope: { type: 'deployment_config', action: 'update' },
};
const USER_READ = { scopes: ['user'], tokenScope: { type: 'user', action: 'read_personal' } };
const USER_WRITE = { scopes: ['user'], tokenScope: { type: 'user', action: 'update_personal' } };

const errors = [
  ApiResponse({ status: 401, description: 'Not logged in (statuscode 997)' }),
  ApiResponse({
    status: 403,
    description: 'Not an admin (global), password confirmation required, or target not within scope',
  }),
  ApiResponse({ status: 412, description: 'OCS-APIRequest header missing: {"message":"CSRF check failed"}' }),
];
const RULE = { $ref: getSchemaPath(WorkflowRuleDto) };
const RULES_BY_CLASS = { type: 'object', additionalProperties: { type: 'array', items: RULE } } as const;
const RULE_OR_LIST = { oneOf: [RULE, { type: 'array', items: RULE }] };
const writeErrors = [
  ...errors,
  ApiResponse({
    status: 400,
    description:
      'Invalid rule: `Parameter "<field>" is missing or has the wrong type`, or the Nextcloud message, in meta.message',
  }),
];
function docs(...decorators: MethodDecorator[]): MethodDecorator {
  return (target, key, descriptor) => {
    for (const decorator of decorators) decorator(target, key, descriptor);
  };
}

/** Spec 1: the ten operations (global scope: administrators; user scope: the caller's own rules). */
@OcsController('apps/workflowengine/api/v1/workflows')
export class WorkflowsController {
  constructor(
    private readonly rules: WorkflowRulesService,
    @Inject(WORKFLOWS_CONFIG) private readonly config: WorkflowsConfig,
  ) {}

  /** Nextcloud's getScopeContext for /user (checked in the handler, after the guards, as Nextcloud does). */
  private userScope(principal: Principal): RuleScope {
    if (this.config.userScopeDisabled)
      throw new ForbiddenError('User not logged in', 'permission', { code: 'WORKFLOW_USER_SCOPE_DISABLED' });
    return { type: SCOPE_USER, userId: principal.user.id, userName: principal.user.name };
  }

  @Get('global')
  @Authenticated(GLOBAL_READ)
  @ApiOperation({
    summary: 'List the global rules, grouped by operation class',
    operationId: 'global_workflows-index',
  })
  @ApiOcsOkResponse(RULES_BY_CLASS, '{ "<operation class>": Rule[] } in the OCS envelope; {} when empty')
  @docs(...errors)
  indexGlobal(): Promise<Readonly<Record<string, readonly ScopedRuleJson[]>>> {
    return this.rules.index(GLOBAL);
  }

  @Get('global/:id')
  @Authenticated(GLOBAL_READ)
  @ApiOperation({
    summary: 'Show a global rule (numeric id) or the global rules of an operation class',
    operationId: 'global_workflows-show',
  })
  @ApiOcsOkResponse(
    RULE_OR_LIST,
    'The rule (numeric id); the rules of the class (class name); [] when unknown in the scope',
  )
  @docs(...errors)
  showGlobal(@Param('id') id: string): Promise<ScopedRuleJson | ScopedRuleJson[]> {
    return this.rules.show(GLOBAL, id);
  }

  @Post('global')
  @Authenticated(GLOBAL_WRITE)
  @UseGuards(PasswordConfirmationGuard)
  @ApiOperation({ summary: 'Create a global rule', operationId: 'global_workflows-create' })
  @ApiBody({ type: CreateWorkflowDto })
  @ApiOcsOkResponse(WorkflowRuleDto, 'The stored rule in the OCS envelope')
  @docs(...writeErrors)
  createGlobal(@Body() body: CreateWorkflowDto): Promise<RuleJson> {
    return this.rules.create(GLOBAL, body);
  }

  @Put('global/:id')
  @Authenticated(GLOBAL_WRITE)
  @UseGuards(PasswordConfirmationGuard)
  @ApiOperation({
    summary: 'Replace a global rule (its class is kept)',
    operationId: 'global_workflows-update',
  })
  @ApiBody({ type: UpdateWorkflowDto })
  @ApiOcsOkResponse(WorkflowRuleDto, 'The stored rule in the OCS envelope')
  @docs(...writeErrors)
  updateGlobal(@Param('id') id: string, @Body() body: UpdateWorkflowDto): Promise<RuleJson> {
    return this.rules.update(GLOBAL, id, body);
  }

  @Delete('global/:id')
  @Authenticated(GLOBAL_WRITE)
  @UseGuards(PasswordConfirmationGuard)
  @ApiOperation({ summary: 'Delete a global rule', operationId: 'global_workflows-destroy' })
  @ApiOcsOkResponse({ type: 'boolean', enum: [true] }, 'data = true')
  @docs(...errors)
  destroyGlobal(@Param('id') id: string): Promise<true> {
    return this.rules.destroy(GLOBAL, id);
  }

  @Get('user')
  @Authenticated(USER_READ)
  @ApiOperation({
    summary: "List the caller's rules, grouped by operation class",
    operationId: 'user_workflows-index',
  })
  @ApiOcsOkResponse(RULES_BY_CLASS, '{ "<operation class>": Rule[] } in the OCS envelope; {} when empty')
  @docs(...errors)
  indexUser(
    @CurrentPrincipal() principal: Principal,
  ): Promise<Readonly<Record<string, readonly ScopedRuleJson[]>>> {
    return this.rules.index(this.userScope(principal));
  }

  @Get('user/:id')
  @Authenticated(USER_READ)
  @ApiOperation({
    summary: "Show one of the caller's rules (numeric id) or their rules of an operation class",
    operationId: 'user_workflows-show',
  })
  @ApiOcsOkResponse(
    RULE_OR_LIST,
    'The rule (numeric id); the rules of the class (class name); [] when unknown in the scope',
  )
  @docs(...errors)
  showUser(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
  ): Promise<ScopedRuleJson | ScopedRuleJson[]> {
    return this.rules.show(this.userScope(principal), id);
  }

  @Post('user')
  @Authenticated(USER_WRITE)
  @UseGuards(PasswordConfirmationGuard)
  @ApiOperation({ summary: 'Create a rule in the caller’s scope', operationId: 'user_workflows-create' })
  @ApiBody({ type: CreateWorkflowDto })
  @ApiOcsOkResponse(WorkflowRuleDto, 'The stored rule in the OCS envelope')
  @docs(...writeErrors)
  createUser(@CurrentPrincipal() principal: Principal, @Body() body: CreateWorkflowDto): Promise<RuleJson> {
    return this.rules.create(this.userScope(principal), body);
  }

  @Put('user/:id')
  @Authenticated(USER_WRITE)
  @UseGuards(PasswordConfirmationGuard)
  @ApiOperation({
    summary: "Replace one of the caller's rules (its class is kept)",
    operationId: 'user_workflows-update',
  })
  @ApiBody({ type: UpdateWorkflowDto })
  @ApiOcsOkResponse(WorkflowRuleDto, 'The stored rule in the OCS envelope')
  @docs(...writeErrors)
  updateUser(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body() body: UpdateWorkflowDto,
  ): Promise<RuleJson> {
    return this.rules.update(this.userScope(principal), id, body);
  }

  @Delete('user/:id')
  @Authenticated(USER_WRITE)
  @UseGuards(PasswordConfirmationGuard)
  @ApiOperation({ summary: "Delete one of the caller's rules", operationId: 'user_workflows-destroy' })
  @ApiOcsOkResponse({ type: 'boolean', enum: [true] }, 'data = true')
  @docs(...errors)
  destroyUser(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<true> {
    return this.rules.destroy(this.userScope(principal), id);
  }
}
