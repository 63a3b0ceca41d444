/**
 * Which sign-in methods this site has configured, as a port: auth owns the configuration (AUTH_CONFIG)
 * and provides it globally, identity's user management reads it without importing auth (issue 32 item 3).
 */
export abstract class SignInMethods {
  /** An OIDC provider is configured (OIDC users may be created). */
  abstract readonly oidc: boolean;
}
