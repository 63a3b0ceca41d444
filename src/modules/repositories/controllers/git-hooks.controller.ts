import { Body, Controller, HttpCode, Param, Post, Req, SetMetadata } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { SkipThrottle } from '@nestjs/throttler';
import { Type } from 'class-transformer';
import { IsArray, IsIn, IsOptional, IsString, Matches, ValidateNested } from 'class-validator';
import type { Request } from 'express';
import { UnauthenticatedError } from '../../../platform/errors/domain-error';
import { Public, RESOURCE_ASSIGNMENT } from '../../../api/access/access.decorators';
import { HookCallerAssignment, hookSessionOf } from '../git/hook-caller.assignment';
import { PushHooksService } from '../push-hooks.service';

class HookRefDto {
  @IsString() @Matches(/^[0-9a-f]{40,64}$/) oldId: string;
  @IsString() @Matches(/^[0-9a-f]{40,64}$/) newId: string;
  @IsString() @Matches(/^refs\//) ref: string;
}

class HookCallDto {
  @IsIn(['pre-receive', 'post-receive']) hook: 'pre-receive' | 'post-receive';
  @IsArray() @ValidateNested({ each: true }) @Type(() => HookRefDto) refs: HookRefDto[];
  @IsOptional() @IsString() objectDirectory?: string | null;
  @IsOptional() @IsString() alternateObjectDirectories?: string | null;
  @IsOptional() @IsString() quarantinePath?: string | null;
}

/**
 * The callback of devplane's git hooks (src/modules/repositories/git/git-hooks.ts). Not an API and not
 * in the OpenAPI document: HookCallerAssignment answers 404 to every caller that is not on this host
 * with the one-push token the server gave the hook's git process, before the body is read or
 * validated (issue #46.3). Answers `{ok, message}`; the hook prints the message (`remote: ...`).
 */
@Controller('api/internal/git-hooks')
@ApiExcludeController()
export class GitHooksController {
  constructor(private readonly hooks: PushHooksService) {}

  @Post(':hook')
  @HttpCode(200)
  @Public()
  @SetMetadata(RESOURCE_ASSIGNMENT, HookCallerAssignment)
  // The loopback calls of git's hooks are guarded by the one-push token, not by the per-address
  // limit: all pushes come from 127.0.0.1 and would otherwise share one bucket.
  @SkipThrottle({ default: true, login: true })
  async call(
    @Param('hook') hook: string,
    @Req() req: Request,
    @Body() body: HookCallDto,
  ): Promise<{ ok: boolean; message?: string }> {
    const session = hookSessionOf(req);
    if (!session || hook !== body.hook) throw new UnauthenticatedError('missing', 'invalid hook token');
    if (hook === 'pre-receive') return this.hooks.preReceive(session, body.refs, body);
    return this.hooks.postReceive(session, body.refs);
  }
}
