import { Body, Controller, HttpCode, Post, Res } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { LoginRateLimit } from '../../../platform/http/rate-limit';
import { Authenticated, CurrentPrincipal } from '../../auth/access.decorators';
import type { Principal } from '../../auth/principal';
import { ApiTokensService } from '../../identity/api-tokens.service';
import { UsersService } from '../../identity/users.service';
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
    private readonly users: UsersService,
    private readonly tokens: ApiTokensService,
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
    const ok = typeof password === 'string' && password !== '' && (await this.users.verifyPassword(principal.user, password));
    if (!ok) {
      res.status(403);
      return [];
    }
    const now = new Date();
    if (principal.token) await this.tokens.markPasswordConfirmed(principal.token.id, now);
    return { lastLogin: Math.floor(now.getTime() / 1000) };
  }
}
