import { Body, Controller, HttpCode, Post, Res, UseFilters } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { LoginRateLimit } from '../../../platform/http/rate-limit';
import { Authenticated, CurrentPrincipal } from '../../../api/access/access.decorators';
import type { Principal } from '../../../api/access/principal';
import { ApiTokensService } from '../../identity/api-tokens.service';
import { UsersService } from '../../identity/users.service';
import { ConfirmPasswordResponseDto } from '../dto/confirm-password-response.dto';
import { ConfirmPasswordDto } from '../dto/confirm-password.dto';
import { ConfirmPasswordFailureFilter } from './confirm-password-failure.filter';

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
  // Renews the caller's own session confirmation: Gitea `write:user`, Coder `user` update_personal.
  @Authenticated({ scopes: ['user'], tokenScope: { type: 'user', action: 'update_personal' } })
  @LoginRateLimit()
  @UseFilters(ConfirmPasswordFailureFilter)
  @ApiOperation({
    summary: 'Confirm the password of the signed-in user (renews the 30-minute password confirmation)',
  })
  @ApiBody({ type: ConfirmPasswordDto })
  @ApiOkResponse({ type: ConfirmPasswordResponseDto })
  @ApiResponse({ status: 403, description: 'Wrong, missing or ill-typed password: body []' })
  @ApiResponse({ status: 401, description: 'Not signed in' })
  async confirm(
    @CurrentPrincipal() principal: Principal,
    @Body() body: ConfirmPasswordDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ConfirmPasswordResponseDto | []> {
    if (!(await this.users.verifyPassword(principal.user, body.password))) {
      res.status(403);
      return [];
    }
    const now = new Date();
    if (principal.token) await this.tokens.markPasswordConfirmed(principal.token.id, now);
    return { lastLogin: Math.floor(now.getTime() / 1000) };
  }
}
