import { Get, Inject } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiProperty } from '@nestjs/swagger';
import { Public } from '../../../api/access/access.decorators';
import { SignInMethods } from '../../../api/access/sign-in-methods';
import { CoderController } from '../../../api/coder/coder-controller.decorator';
import { CoderResponseDto } from '../../../api/coder/coder-response.dto';
import type { AppConfig } from '../../../platform/config/app-config';
import { APP_CONFIG } from '../../../platform/config/config.token';
import { NotFoundError } from '../../../platform/errors/domain-error';
import { UsersService } from '../users.service';

class AuthMethodDto {
  @ApiProperty() enabled: boolean;
}
class GithubAuthMethodDto {
  @ApiProperty() enabled: boolean;
  @ApiProperty() default_provider_configured: boolean;
}
class OidcAuthMethodDto {
  @ApiProperty() enabled: boolean;
  @ApiProperty() signInText: string;
  @ApiProperty() iconUrl: string;
}
/** codersdk.AuthMethods. */
export class AuthMethodsDto {
  @ApiProperty() terms_of_service_url: string;
  @ApiProperty({ type: AuthMethodDto }) password: AuthMethodDto;
  @ApiProperty({ type: GithubAuthMethodDto }) github: GithubAuthMethodDto;
  @ApiProperty({ type: OidcAuthMethodDto }) oidc: OidcAuthMethodDto;
}

/**
 * What Coder's login page reads before anyone signs in (issue 48 item 1). Registered before
 * `users/{user}` (identity's first Coder controller), which would otherwise read `first` and
 * `authmethods` as user names and answer 401.
 */
@CoderController('users')
export class CoderSignInController {
  constructor(
    private readonly users: UsersService,
    private readonly signIn: SignInMethods,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get('first')
  @Public()
  @ApiOperation({ summary: 'Whether the initial user exists (Coder: 200 when it does, 404 otherwise)' })
  @ApiOkResponse({ type: CoderResponseDto })
  @ApiNotFoundResponse({ type: CoderResponseDto })
  async first(): Promise<CoderResponseDto> {
    if ((await this.users.countIndividuals()) === 0)
      throw new NotFoundError('The initial user has not been created!');
    return { message: 'The initial user has already been created!' };
  }

  @Get('authmethods')
  @Public()
  @ApiOperation({ summary: 'The sign-in methods of this deployment' })
  @ApiOkResponse({ type: AuthMethodsDto })
  authMethods(): AuthMethodsDto {
    return {
      terms_of_service_url: '',
      password: { enabled: this.config.passwordLoginEnabled },
      // devplane has no GitHub sign-in: Coder's answer for a deployment without it.
      github: { enabled: false, default_provider_configured: false },
      oidc: { enabled: this.signIn.oidc, signInText: '', iconUrl: '' },
    };
  }
}
