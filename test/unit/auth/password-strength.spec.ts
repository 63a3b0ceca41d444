import {
  passwordBase,
  passwordEntropy,
  passwordLength,
  removeMoreThanTwoRepeatingChars,
  removeSequence,
  validatePasswordStrength,
} from '../../../src/modules/identity/password-strength';

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
    [
      '12345678',
      10,
      2,
      6.64,
      false,
      'insecure password, try including more special characters, using lowercase letters, using uppercase letters or using a longer password',
    ],
    [
      'Qwerty123!',
      67,
      6,
      36.4,
      false,
      'insecure password, try including more special characters or using a longer password',
    ],
    [
      'Passw0rd',
      62,
      8,
      47.63,
      false,
      'insecure password, try including more special characters or using a longer password',
    ],
    [
      'password1234',
      36,
      10,
      51.7,
      false,
      'insecure password, try including more special characters, using uppercase letters or using a longer password',
    ],
    ['Password1234', 62, 10, 59.54, true, ''],
    ['Summer2024', 62, 10, 59.54, true, ''],
    ['testpassword', 26, 12, 56.41, true, ''],
    ['abcdefghijklmnopqrstuvwxyz', 26, 6, 28.2, false, NO_UPPER_DIGIT],
    ['a'.repeat(40), 26, 2, 9.4, false, NO_UPPER_DIGIT],
    ['&1&1&1&1&1&é', 16, 13, 52, true, ''],
    [
      '&1&1&1&1&1é',
      16,
      12,
      48,
      false,
      'insecure password, try including more special characters, using lowercase letters, using uppercase letters or using a longer password',
    ],
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

/** The library's in-place algorithms, kept here as the oracle for the linear versions. */
function referenceRepeats(chars: string[]): string[] {
  const out = [...chars];
  let prevPrev: string | undefined;
  let prev: string | undefined;
  for (let i = 0; i < out.length; i++) {
    const current = out[i]!;
    if (current === prev && current === prevPrev) {
      out.splice(i, 1);
      i--;
    }
    prevPrev = prev;
    prev = current;
  }
  return out;
}
function referenceSequence(chars: string[], sequence: string): string[] {
  const runes = [...chars];
  const seq = Array.from(sequence);
  let matches = 0;
  let i = 0;
  while (i < runes.length) {
    for (let j = 0; j < seq.length; j++) {
      if (i >= runes.length) break;
      if (runes[i] !== seq[j]) {
        matches = 0;
        continue;
      }
      matches++;
      if (matches > 2) runes.splice(i, 1);
      else i++;
    }
    i++;
  }
  return runes;
}

describe('linear removal equals the library algorithm', () => {
  // Deterministic pseudo-random strings over an alphabet rich in sequences and repeats.
  let seed = 42;
  const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648);
  const alphabet = Array.from('0123456789abcdeqwrtyasdzxc!é');
  const samples = Array.from({ length: 3000 }, () =>
    Array.from({ length: next() % 40 }, () => alphabet[next() % alphabet.length]!),
  );

  it('removeMoreThanTwoRepeatingChars and removeSequence match on 3000 samples', () => {
    for (const chars of samples) {
      expect(removeMoreThanTwoRepeatingChars(chars)).toEqual(referenceRepeats(chars));
      for (const sequence of [
        '0123456789',
        'qwertyuiop',
        'abcdefghijklmnopqrstuvwxyz',
        '9876543210',
        'zyxwvutsrqponmlkjihgfedcba',
      ]) {
        expect(removeSequence(chars, sequence)).toEqual(referenceSequence(chars, sequence));
      }
    }
  });

  it('a megabyte password gets its verdict (the in-place version took minutes)', () => {
    expect(validatePasswordStrength('a'.repeat(1_000_000)).valid).toBe(false);
    expect(validatePasswordStrength('0123456789'.repeat(100_000)).valid).toBe(false);
    expect(validatePasswordStrength('Aa1!x'.repeat(200_000))).toEqual({
      valid: false,
      details: 'password must be no more than 64 characters',
    });
  });
});
