// Coder's password rule is identity's (src/modules/identity/password-strength.ts, issue 32 item 3); this path stays.
export * from '../identity/password-strength';
