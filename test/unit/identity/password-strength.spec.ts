import {
  MAX_PASSWORD_BYTES,
  PASSWORD_TOO_LONG,
  validatePasswordStrength,
} from '../../../src/modules/identity/password-strength';

describe("identity: Coder's password rule", () => {
  it('refuses low-entropy passwords with a reason', () => {
    const verdict = validatePasswordStrength('password');
    expect(verdict.valid).toBe(false);
    expect(verdict.details).not.toBe('');
  });

  it('does not count sequences and repeats as entropy', () => {
    expect(validatePasswordStrength('abcdefghijklmnop').valid).toBe(false);
    expect(validatePasswordStrength('aaaaaaaaaaaaaaaaaaaaaaaa').valid).toBe(false);
  });

  it('accepts a long mixed password', () => {
    expect(validatePasswordStrength('Tr0ub4dor&3-correct-Horse')).toEqual({ valid: true, details: '' });
  });

  it('checks entropy first, then at most 64 bytes', () => {
    const long = 'Xq7!'.repeat(MAX_PASSWORD_BYTES / 4) + 'z';
    expect(validatePasswordStrength(long)).toEqual({ valid: false, details: PASSWORD_TOO_LONG });
  });
});
