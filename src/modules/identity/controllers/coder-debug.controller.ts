import { Get, Param } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiResponse } from '@nestjs/swagger';
import { CoderController } from '../../../api/coder/coder-controller.decorator';
import { CoderResponseDto } from '../../../api/coder/coder-response.dto';
import { Authenticated, CurrentPrincipal } from '../../../api/access/access.decorators';
import type { Principal } from '../../../api/access/principal';
import { OidcClaimsDebugDto } from '../management/coder-management.dto';
import { OidcClaimsService } from '../management/oidc-claims.service';
import { UserDirectory } from '../user-directory.service';

/** Owner-only debugging of a user's OIDC link (Coder's `/debug/{user}/debug-link`). */
@CoderController('debug')
export class CoderDebugController {
  constructor(
    private readonly directory: UserDirectory,
    private readonly claims: OidcClaimsService,
  ) {}

  @Get(':user/debug-link')
  @Authenticated({ admin: true, tokenScope: { type: 'user', action: 'read' } })
  @ApiOperation({
    summary: "A user's OIDC claims split by origin (ID token, userinfo) and merged; owners only",
  })
  @ApiParam({ name: 'user', description: 'user id (uuid), username, or `me`' })
  @ApiOkResponse({ type: OidcClaimsDebugDto })
  @ApiResponse({ status: 400, type: CoderResponseDto })
  @ApiResponse({ status: 403, type: CoderResponseDto })
  async debugLink(
    @CurrentPrincipal() principal: Principal,
    @Param('user') ref: string,
  ): Promise<OidcClaimsDebugDto> {
    return this.claims.of(await this.directory.requireCoderUser(ref, principal));
  }
}
