import { Global, Module } from '@nestjs/common';
import { AuthGuard } from './auth.guard';
import { CredentialResolver } from './credential-resolver.service';

/** Credential resolution and the deny-by-default guard; login, scopes and authcheck routes live here too. */
@Global()
@Module({
  providers: [CredentialResolver, AuthGuard],
  exports: [CredentialResolver, AuthGuard],
})
export class AuthModule {}
