import type { ApiToken } from './entities/api-token.entity';
import type { User } from './entities/user.entity';

/** A user principal (src/api/access/principal.ts) carries identity's account and token entities. */
declare module '../../api/access/principal' {
  interface PrincipalAccountTypes {
    user: User;
    token: ApiToken;
  }
}
export {};
