import { Body, Controller, HttpCode, Post, Res } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Repository } from 'typeorm';
import { InjectRepository } from '@nestjs/typeorm';
import { LoginRateLimit } from '../../../platform/http/rate-limit';
import { Authenticated, CurrentPrincipal } from '../../auth/access.decorators';
import type { Principal } from '../../auth/principal';
import { ApiToken } from '../../identity/entities/api-token.entity';
import { PasswordHasher } from '../../identity/password-hasher.service';
import { ConfirmPasswordDto, ConfirmPasswordResponseDto } from '../dto/workflow.dto';

/**
 * Nextcloud's `POST /login/confirm` (LoginController::confirmPassword): renews the password
 * confirmation of the caller's session, which the OCS workflow create/update/delete need for
 * cookie sessions. Plain JSON, not OCS.
 */
@ApiTags('ocs')
@Controller('login')
export class LoginConfirmController {
  constructor(
    private readonly hasher: PasswordHasher,
    @InjectRepository(ApiToken) private readonly tokens: Repository<ApiToken>,
  ) {}

  @Post('confirm')
  @HttpCode(200)
  @Authenticated()
  @LoginRateLimit()
  @ApiOperation({ summary: 'Confirm the password of the signed-in user (renews the 30-minute password confirmation)' })
  @ApiBody({ type: ConfirmPasswordDto })
  @ApiOkResponse({ type: ConfirmPasswordResponseDto })
  @ApiResponse({ status: 403, description: 'Wrong password: body []' })
  @ApiResponse({ status: 401, description: 'Not signed in' })
  async confirm(
    @CurrentPrincipal() principal: Principal,
    @Body() body: unknown,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ConfirmPasswordResponseDto | []> {
    const password = (body as { password?: unknown } | null)?.password;
    const fresh = await this.tokens.manager.query('SELECT password_hash FROM users WHERE id = $1', [principal.user.id]) as { password_hash: string | null }[];
    const ok = typeof password === 'string' && password !== '' && (await this.hasher.verify(fresh[0]?.password_hash ?? null, password));
    if (!ok) {
      res.status(403);
      return [];
    }
    const now = new Date();
    if (principal.token) await this.tokens.update({ id: principal.token.id }, { passwordConfirmedAt: now });
    return { lastLogin: Math.floor(now.getTime() / 1000) };
  }
}
