import {
  passwordBase,
  passwordEntropy,
  passwordLength,
  removeMoreThanTwoRepeatingChars,
  removeSequence,
  validatePasswordStrength,
} from './password-strength';

const NO_UPPER_DIGIT =
  'insecure password, try including more special characters, using uppercase letters, using numbers or using a longer password';
const FOUR_HINTS =
  'insecure password, try including more special characters, using lowercase letters, using uppercase letters, using numbers or using a longer password';

/** Reference B.4 test vectors (computed with an exact port of go-password-validator v0.3.0). */
describe('password strength (entropy rule)', () => {
  it.each([
    ['notstrong', 26, 9, 42.3, false, NO_UPPER_DIGIT],
    ['SomeSecurePassword!', 57, 19, 110.82, true, ''],
    ['MySecurePassword!', 57, 17, 99.16, true, ''],
    ['password', 26, 8, 37.6, false, NO_UPPER_DIGIT],
    ['12345678', 10, 2, 6.64, false, 'insecure password, try including more special characters, using lowercase letters, using uppercase letters or using a longer password'],
    ['Qwerty123!', 67, 6, 36.4, false, 'insecure password, try including more special characters or using a longer password'],
    ['Passw0rd', 62, 8, 47.63, false, 'insecure password, try including more special characters or using a longer password'],
    ['password1234', 36, 10, 51.7, false, 'insecure password, try including more special characters, using uppercase letters or using a longer password'],
    ['Password1234', 62, 10, 59.54, true, ''],
    ['Summer2024', 62, 10, 59.54, true, ''],
    ['testpassword', 26, 12, 56.41, true, ''],
    ['abcdefghijklmnopqrstuvwxyz', 26, 6, 28.2, false, NO_UPPER_DIGIT],
    ['a'.repeat(40), 26, 2, 9.4, false, NO_UPPER_DIGIT],
    ['&1&1&1&1&1&é', 16, 13, 52, true, ''],
    ['&1&1&1&1&1é', 16, 12, 48, false, 'insecure password, try including more special characters, using lowercase letters, using uppercase letters or using a longer password'],
    ['éééé', 1, 4, 0, false, FOUR_HINTS],
    ['', 0, 0, 0, false, FOUR_HINTS],
    ['Aa1!'.repeat(16), 67, 64, 388.23, true, ''],
    ['Aa1!'.repeat(16) + 'x', 67, 65, 394.3, false, 'password must be no more than 64 characters'],
    ['Xy7#é'.repeat(11), 85, 66, 423.02, false, 'password must be no more than 64 characters'],
  ])('%j: base %i, length %i, entropy %d', (password, base, length, entropy, valid, details) => {
    expect(passwordBase(password)).toBe(base);
    expect(passwordLength(password)).toBe(length);
    expect(passwordEntropy(password)).toBeCloseTo(entropy, 2);
    expect(validatePasswordStrength(password)).toEqual({ valid, details });
  });

  it('the exact threshold (B=16, L=13) is 52.0 and valid', () => {
    expect(passwordEntropy('&1&1&1&1&1&é')).toBe(52);
  });

  it('removes sequences with the library quirks, and repeats beyond two', () => {
    expect(removeSequence(Array.from('12345678'), '0123456789').join('')).toBe('12');
    expect(removeSequence(Array.from('abcqwertyabc'), 'qwertyuiop').join('')).toBe('abcqwabc');
    expect(removeMoreThanTwoRepeatingChars(Array.from('bbbbbbbaaaaaaaaa')).join('')).toBe('bbaa');
  });
});
