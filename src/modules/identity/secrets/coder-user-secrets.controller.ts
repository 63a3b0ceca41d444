import { Body, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiResponse,
} from '@nestjs/swagger';
import { CoderController } from '../../../api/coder/coder-controller.decorator';
import { CoderResponseDto } from '../../../api/coder/coder-response.dto';
import { Authenticated, CurrentPrincipal } from '../../../api/access/access.decorators';
import { AccessPolicy } from '../../../api/access/access-policy';
import type { Principal } from '../../../api/access/principal';
import type { User } from '../entities/user.entity';
import { UserDirectory } from '../user-directory.service';
import type { UserSecret } from './user-secret.entity';
import {
  CoderUserSecretDto,
  CreateUserSecretRequestDto,
  ImportUserSecretsRequestDto,
  UpdateUserSecretRequestDto,
} from './user-secrets.dto';
import { UserSecretsService } from './user-secrets.service';
import { IMPORT_BODY_MAX_BYTES, parseSecretImport } from './secret-import';
import { JsonBody } from '../../../api/body/body.decorators';

const ERROR = { type: CoderResponseDto };
const USER_PARAM = { name: 'user', description: 'user id (uuid), username, or `me`' };

function present(secret: UserSecret): CoderUserSecretDto {
  return {
    id: secret.id,
    name: secret.name,
    description: secret.description,
    env_name: secret.envName,
    file_path: secret.filePath,
    enabled: secret.enabled,
    created_at: secret.createdAt.toISOString(),
    updated_at: secret.updatedAt.toISOString(),
  };
}

/**
 * Coder's user secrets (`/api/v2/users/{user}/secrets`, reference D.1), RBAC resource `user_secret`:
 * only the user (owners and administrators included: their roles exclude other users' secrets).
 * Creating or listing for someone else is 403; one named secret of someone else is 404.
 */
@CoderController('users/:user/secrets')
export class CoderUserSecretsController {
  constructor(
    private readonly directory: UserDirectory,
    private readonly authz: AccessPolicy,
    private readonly secrets: UserSecretsService,
  ) {}

  private async target(principal: Principal, ref: string, action: string, notFound: boolean): Promise<User> {
    const user = await this.directory.requireCoderUser(ref, principal);
    await this.authz.require(principal, action, { type: 'user_secret', ownerId: user.uuid }, { notFound });
    return user;
  }

  @Post()
  @Authenticated({ tokenScope: { type: 'user_secret', action: 'create' } })
  @ApiOperation({ summary: 'Create a user secret (the value is never returned)' })
  @ApiParam(USER_PARAM)
  @ApiCreatedResponse({ type: CoderUserSecretDto })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 409, ...ERROR })
  async create(
    @CurrentPrincipal() principal: Principal,
    @Param('user') ref: string,
    @Body() body: CreateUserSecretRequestDto,
  ): Promise<CoderUserSecretDto> {
    const user = await this.target(principal, ref, 'create', false);
    return present(
      await this.secrets.create(user, {
        name: body.name,
        value: body.value,
        description: body.description,
        envName: body.env_name,
        filePath: body.file_path,
        enabled: body.enabled,
      }),
    );
  }

  @Get()
  @Authenticated({ tokenScope: { type: 'user_secret', action: 'read' } })
  @ApiOperation({ summary: "List a user's secrets by name" })
  @ApiParam(USER_PARAM)
  @ApiOkResponse({ type: [CoderUserSecretDto] })
  @ApiResponse({ status: 403, ...ERROR })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Param('user') ref: string,
  ): Promise<CoderUserSecretDto[]> {
    const user = await this.target(principal, ref, 'read', false);
    return (await this.secrets.list(user)).map(present);
  }

  @Post('batch')
  @JsonBody({ limitBytes: IMPORT_BODY_MAX_BYTES })
  @Authenticated({ tokenScope: { type: 'user_secret', action: 'create' } })
  @ApiOperation({ summary: 'Import secrets from an env, JSON or YAML file: all of them or none' })
  @ApiParam(USER_PARAM)
  @ApiCreatedResponse({ type: [CoderUserSecretDto] })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 409, ...ERROR })
  async importBatch(
    @CurrentPrincipal() principal: Principal,
    @Param('user') ref: string,
    @Body() body: ImportUserSecretsRequestDto,
  ): Promise<CoderUserSecretDto[]> {
    const user = await this.target(principal, ref, 'create', false);
    const inputs = parseSecretImport(body.format ?? '', body.content ?? '');
    return (await this.secrets.importBatch(user, inputs)).map(present);
  }

  @Get(':name')
  @Authenticated({ tokenScope: { type: 'user_secret', action: 'read' } })
  @ApiOperation({ summary: 'Get one user secret (without its value)' })
  @ApiParam(USER_PARAM)
  @ApiOkResponse({ type: CoderUserSecretDto })
  @ApiResponse({ status: 404, ...ERROR })
  async get(
    @CurrentPrincipal() principal: Principal,
    @Param('user') ref: string,
    @Param('name') name: string,
  ): Promise<CoderUserSecretDto> {
    const user = await this.target(principal, ref, 'read', true);
    return present(await this.secrets.get(user, name));
  }

  @Patch(':name')
  @Authenticated({ tokenScope: { type: 'user_secret', action: 'update' } })
  @ApiOperation({ summary: 'Update a user secret (the name cannot change; at least one field)' })
  @ApiParam(USER_PARAM)
  @ApiOkResponse({ type: CoderUserSecretDto })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 409, ...ERROR })
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('user') ref: string,
    @Param('name') name: string,
    @Body() body: UpdateUserSecretRequestDto,
  ): Promise<CoderUserSecretDto> {
    const user = await this.target(principal, ref, 'update', true);
    return present(
      await this.secrets.update(user, name, {
        value: body.value,
        description: body.description,
        envName: body.env_name,
        filePath: body.file_path,
        enabled: body.enabled,
      }),
    );
  }

  @Delete(':name')
  @HttpCode(204)
  @Authenticated({ tokenScope: { type: 'user_secret', action: 'delete' } })
  @ApiOperation({ summary: 'Delete a user secret' })
  @ApiParam(USER_PARAM)
  @ApiNoContentResponse({ description: 'deleted' })
  @ApiResponse({ status: 404, ...ERROR })
  async delete(
    @CurrentPrincipal() principal: Principal,
    @Param('user') ref: string,
    @Param('name') name: string,
  ): Promise<void> {
    const user = await this.target(principal, ref, 'delete', true);
    await this.secrets.delete(user, name);
  }
}
