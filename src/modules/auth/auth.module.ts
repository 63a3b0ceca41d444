import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccessPolicy } from '../../api/access/access-policy';
import { SignInMethods } from '../../api/access/sign-in-methods';
import type { AppConfig } from '../../platform/config/app-config';
import { APP_CONFIG } from '../../platform/config/config.token';
import { AUTH_CONFIG, type AuthConfig, loadAuthConfig } from './auth.config';
import { AuthGuard } from './auth.guard';
import { AuthRepository } from './auth.repository';
import { AuthorizationService } from './authorization.service';
import { CoderTokensService } from './coder-tokens.service';
import { CoderAuthController } from './controllers/coder-auth.controller';
import { CoderOidcController } from './controllers/coder-oidc.controller';
import { CoderTokensController } from './controllers/coder-tokens.controller';
import { GiteaTokensController } from './controllers/gitea-tokens.controller';
import { GiteaTokensService } from './gitea-tokens.service';
import { OidcSignInService } from './oidc/oidc-sign-in.service';
import { PasswordGuessLimiter } from '../../platform/http/password-guess-limiter';
import { CredentialResolver } from './credential-resolver.service';
import { CredentialVerifier } from './credential-verifier.service';
import { CREDENTIAL_STRATEGIES } from './strategies';
import { AUTH_ENTITIES } from './entities';
import { OneTimePasscodesService } from './one-time-passcodes.service';
import { PasswordStrengthService } from './password-strength.service';
import { PasswordLoginEnabledGuard } from './password-login.guard';
import { RealtimeAccessService } from './realtime-access.service';
import { RealtimeRevocationListener } from './realtime-revocation.listener';
import { SessionsService } from './sessions.service';
import { TargetUserResolver } from './target-user.service';
import './auth.error-codes';

/**
 * Credential resolution and the deny-by-default guard, the RBAC policy engine
 * (AuthorizationService), password login, one-time passcodes, the password rule, login
 * conversion and Coder's API key routes. See README.md in this folder.
 */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature(AUTH_ENTITIES)],
  controllers: [CoderAuthController, CoderTokensController, CoderOidcController, GiteaTokensController],
  providers: [
    {
      provide: AUTH_CONFIG,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => loadAuthConfig(config.env),
    },
    {
      provide: SignInMethods,
      inject: [AUTH_CONFIG],
      useFactory: (config: AuthConfig): SignInMethods => ({
        get oidc() {
          return Boolean(config.oidc);
        },
      }),
    },
    AuthRepository,
    PasswordGuessLimiter,
    CredentialVerifier,
    ...CREDENTIAL_STRATEGIES,
    CredentialResolver,
    AuthGuard,
    AuthorizationService,
    { provide: AccessPolicy, useExisting: AuthorizationService },
    PasswordStrengthService,
    SessionsService,
    PasswordLoginEnabledGuard,
    OneTimePasscodesService,
    CoderTokensService,
    GiteaTokensService,
    TargetUserResolver,
    RealtimeAccessService,
    RealtimeRevocationListener,
    OidcSignInService,
  ],
  exports: [
    CredentialResolver,
    CredentialVerifier,
    PasswordGuessLimiter,
    AuthGuard,
    AuthorizationService,
    AccessPolicy,
    SignInMethods,
    PasswordStrengthService,
    AUTH_CONFIG,
  ],
})
export class AuthModule {}
