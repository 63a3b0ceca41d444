/**
 * Coder's password rule (`coderd/userpassword.Validate`): the entropy check of
 * go-password-validator v0.3.0 with a minimum of 52 bits, then at most 64 bytes. A faithful
 * port: code points for the classes, UTF-8 bytes for the length, the same loop quirks.
 */
export const MIN_PASSWORD_ENTROPY = 52;
export const MAX_PASSWORD_BYTES = 64;
export const PASSWORD_TOO_LONG = 'password must be no more than 64 characters';

const REPLACE_CHARS = '!@$&*';
const SEP_CHARS = '_-., ';
const OTHER_SPECIAL_CHARS = '"#%\'()+/:;<=>?[\\]^{|}~';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const DIGITS = '0123456789';

const SEQUENCES = ['0123456789', 'qwertyuiop', 'asdfghjkl', 'zxcvbnm', 'abcdefghijklmnopqrstuvwxyz'];

type CharClass = 'replace' | 'sep' | 'other' | 'lower' | 'upper' | 'digit' | 'unknown';

function classOf(char: string): CharClass {
  if (REPLACE_CHARS.includes(char)) return 'replace';
  if (SEP_CHARS.includes(char)) return 'sep';
  if (OTHER_SPECIAL_CHARS.includes(char)) return 'other';
  if (LOWER.includes(char)) return 'lower';
  if (UPPER.includes(char)) return 'upper';
  if (DIGITS.includes(char)) return 'digit';
  return 'unknown';
}

const CLASS_SIZES: Record<Exclude<CharClass, 'unknown'>, number> = {
  replace: REPLACE_CHARS.length,
  sep: SEP_CHARS.length,
  other: OTHER_SPECIAL_CHARS.length,
  lower: 26,
  upper: 26,
  digit: 10,
};

/** The character pool size: the classes present plus one per distinct code point outside them. */
export function passwordBase(password: string): number {
  const classes = new Set<CharClass>();
  let unknown = 0;
  for (const char of new Set(Array.from(password))) {
    const cls = classOf(char);
    if (cls === 'unknown') unknown += 1;
    else classes.add(cls);
  }
  let base = unknown;
  for (const cls of classes) base += CLASS_SIZES[cls as Exclude<CharClass, 'unknown'>];
  return base;
}

/** Collapses runs of three or more identical code points to two. Linear (no splicing). */
export function removeMoreThanTwoRepeatingChars(chars: string[]): string[] {
  const out: string[] = [];
  let prevPrev: string | undefined;
  let prev: string | undefined;
  for (const current of chars) {
    if (!(current === prev && current === prevPrev)) out.push(current);
    prevPrev = prev;
    prev = current;
  }
  return out;
}

/**
 * go-password-validator's `removeMoreThanTwoFromSequence`, loop quirks included. The library
 * removes in place (quadratic: a long password cost minutes); here the already-final prefix is
 * `out` and `r` points at the rune the library would see at its index, so the cost is linear.
 */
export function removeSequence(chars: string[], sequence: string): string[] {
  const seq = Array.from(sequence);
  const out: string[] = [];
  let r = 0;
  let matches = 0;
  while (r < chars.length) {
    for (let j = 0; j < seq.length; j++) {
      if (r >= chars.length) break;
      if (chars[r] !== seq[j]) {
        matches = 0;
        continue;
      }
      matches++;
      if (matches > 2)
        r++; // removed
      else out.push(chars[r++]!);
    }
    // The library's outer `i++` keeps the rune at the index and moves on.
    if (r < chars.length) out.push(chars[r++]!);
  }
  return out;
}

function reverse(text: string): string {
  return Array.from(text).reverse().join('');
}

/** The length after removing repeats and keyboard/alphabet sequences, in UTF-8 bytes. */
export function passwordLength(password: string): number {
  let chars = removeMoreThanTwoRepeatingChars(Array.from(password));
  for (const sequence of SEQUENCES) chars = removeSequence(chars, sequence);
  for (const sequence of SEQUENCES) chars = removeSequence(chars, reverse(sequence));
  return Buffer.byteLength(chars.join(''), 'utf8');
}

export function passwordEntropy(password: string): number {
  const base = passwordBase(password);
  if (base === 0) return 0;
  const length = passwordLength(password);
  const bits = Math.log2(base);
  let entropy = 0;
  for (let i = 0; i < length; i++) entropy += bits;
  return entropy;
}

function weaknessText(password: string): string {
  const present = new Set(Array.from(password).map(classOf));
  const hints: string[] = [];
  if (!(present.has('replace') && present.has('sep') && present.has('other')))
    hints.push('including more special characters');
  if (!present.has('lower')) hints.push('using lowercase letters');
  if (!present.has('upper')) hints.push('using uppercase letters');
  if (!present.has('digit')) hints.push('using numbers');
  return hints.length > 0
    ? `insecure password, try ${hints.join(', ')} or using a longer password`
    : 'insecure password, try using a longer password';
}

export interface PasswordVerdict {
  valid: boolean;
  /** `''` when valid, otherwise the exact reason text. */
  details: string;
}

/** The rule: entropy ≥ 52 bits first, then at most 64 bytes. */
export function validatePasswordStrength(password: string): PasswordVerdict {
  if (passwordEntropy(password) < MIN_PASSWORD_ENTROPY)
    return { valid: false, details: weaknessText(password) };
  if (Buffer.byteLength(password, 'utf8') > MAX_PASSWORD_BYTES)
    return { valid: false, details: PASSWORD_TOO_LONG };
  return { valid: true, details: '' };
}
