import { Body, HttpCode, Param, Put } from '@nestjs/common';
import {
  ApiBody,
  ApiCreatedResponse,
  ApiOperation,
  ApiParam,
  ApiProperty,
  ApiResponse,
} from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { JsonBody } from '../../../api/body/body.decorators';
import { NpmController } from '../../../api/npm/npm-controller.decorator';
import { BadRequestError, UnauthenticatedError } from '../../../platform/errors/domain-error';
import { LoginRateLimit } from '../../../platform/http/rate-limit';
import { Public } from '../../../api/access/access.decorators';
import { ApiTokensService } from '../../identity/api-tokens.service';
import { UsersService } from '../../identity/users.service';

export class NpmLoginDto {
  @ApiProperty() @IsString() @MaxLength(255) name: string;
  @ApiProperty() @IsString() @MaxLength(1024) password: string;
  @ApiProperty({ required: false }) @IsOptional() @IsString() @MaxLength(254) email?: string;
}

export class NpmLoginResponseDto {
  @ApiProperty() ok: boolean;
  @ApiProperty() id: string;
  @ApiProperty() token: string;
}

const PREFIX = 'org.couchdb.user:';
/** What npm's legacy login asks for is a session for the registry: 30 days, package scope. */
const LIFETIME_SECONDS = 30 * 86_400;

/**
 * `npm login --auth-type=legacy` / `npm adduser` (issue 36.6): npm PUTs
 * `{registry}/-/user/org.couchdb.user:{name}` with `{name, password}`, as Verdaccio and Gitea accept. A
 * password user gets a new API token (scope `package`) which npm stores as `_authToken`. No sign-up:
 * an unknown user or a wrong password is 401.
 */
@NpmController(':owner/npm')
export class NpmLoginController {
  constructor(
    private readonly users: UsersService,
    private readonly tokens: ApiTokensService,
  ) {}

  @Put('-/user/:couchUser')
  @HttpCode(201)
  @JsonBody({ limitBytes: 16 * 1024 })
  @Public({ anyTokenScope: true })
  @LoginRateLimit()
  @ApiOperation({ summary: 'npm login (legacy): a password user gets an API token for the registry' })
  @ApiParam({ name: 'owner' })
  @ApiParam({ name: 'couchUser', description: '`org.couchdb.user:{name}`' })
  @ApiBody({ type: NpmLoginDto })
  @ApiCreatedResponse({ type: NpmLoginResponseDto })
  @ApiResponse({ status: 401, description: 'npm error `{error}`' })
  async login(
    @Param('couchUser') couchUser: string,
    @Body() body: NpmLoginDto,
  ): Promise<NpmLoginResponseDto> {
    if (!couchUser.startsWith(PREFIX) || couchUser.slice(PREFIX.length) !== body.name)
      throw new BadRequestError('the user in the path and the body differ', { code: 'NPM_LOGIN_NAME' });
    const user = await this.users.findByName(body.name);
    const valid =
      user !== null &&
      user.loginType === 'password' &&
      user.status !== 'suspended' &&
      !user.prohibitLogin &&
      (await this.users.verifyPassword(user, body.password));
    if (!user || !valid) throw new UnauthenticatedError('bad_secret', 'bad username or password');
    const { key } = await this.tokens.create({
      userId: user.id,
      name: `npm-login-${Date.now().toString(36)}`,
      scopes: ['write:package', 'read:package'],
      lifetimeSeconds: LIFETIME_SECONDS,
    });
    return { ok: true, id: `${PREFIX}${user.name}`, token: key };
  }
}
