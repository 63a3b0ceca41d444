import { Body, Controller, Headers, HttpCode, Param, Post } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { SkipThrottle } from '@nestjs/throttler';
import { Type } from 'class-transformer';
import { IsArray, IsIn, IsOptional, IsString, Matches, ValidateNested } from 'class-validator';
import { UnauthenticatedError } from '../../../platform/errors/domain-error';
import { Public } from '../../../api/access/access.decorators';
import { PushSessions } from '../git/push-sessions.service';
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
 * The callback of devplane's git hooks (src/modules/repositories/git/git-hooks.ts). Not an API:
 * reachable only with the one-push token the server gave the hook's git process; answers
 * `{ok, message}` and the hook prints the message (git shows `remote: ...`).
 */
@Controller('api/internal/git-hooks')
@ApiExcludeController()
export class GitHooksController {
  constructor(
    private readonly pushes: PushSessions,
    private readonly hooks: PushHooksService,
  ) {}

  @Post(':hook')
  @HttpCode(200)
  @Public()
  // The loopback calls of git's hooks are guarded by the one-push token, not by the per-address
  // limit: all pushes come from 127.0.0.1 and would otherwise share one bucket.
  @SkipThrottle({ default: true, login: true })
  async call(
    @Param('hook') hook: string,
    @Headers('x-devplane-hook-token') token: string | undefined,
    @Body() body: HookCallDto,
  ): Promise<{ ok: boolean; message?: string }> {
    const session = this.pushes.find(token);
    if (!session || hook !== body.hook) throw new UnauthenticatedError('missing', 'invalid hook token');
    if (hook === 'pre-receive') return this.hooks.preReceive(session, body.refs, body);
    return this.hooks.postReceive(session, body.refs);
  }
}
