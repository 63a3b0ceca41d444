import { Inject, Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import type { AppConfig } from '../../platform/config/app-config';
import { APP_CONFIG } from '../../platform/config/config.token';

export type PasswordProblem =
  | { kind: 'too_short' }
  | { kind: 'not_complex' }
  | { kind: 'pwned' }
  | { kind: 'pwned_check_failed'; error: string };

const CLASSES: Record<string, RegExp> = {
  lower: /[a-z]/,
  upper: /[A-Z]/,
  digit: /[0-9]/,
  // Gitea's `spec` class, space included.
  spec: /[ !"#$%&'()*+,\-./:;<=>?@[\\\]^_{|}~`]/,
};

let commonPasswords: Set<string> | undefined;

function loadCommonPasswords(): Set<string> {
  // Lazy: about 49k words, loaded on the first check and kept for the process.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { dictionary } = require('@zxcvbn-ts/language-common') as { dictionary: Record<string, string[]> };
  return new Set(dictionary['passwords-common'] ?? []);
}

/**
 * Gitea's configurable password policy for the Gitea-dialect routes: PASSWORD_MIN_LENGTH (bytes),
 * PASSWORD_COMPLEXITY classes, and the leaked-password check PASSWORD_CHECK_PWNED (`off`, `local`:
 * the common-password list of @zxcvbn-ts/language-common, or the URL of a HaveIBeenPwned-style
 * range API). The Coder dialect keeps its own entropy rule.
 */
@Injectable()
export class GiteaPasswordPolicy {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /** The first problem, in Gitea's order (length, complexity, pwned), or null. */
  async check(password: string): Promise<PasswordProblem | null> {
    if (Buffer.byteLength(password, 'utf8') < this.config.password.minLength) return { kind: 'too_short' };
    if (!this.isComplexEnough(password)) return { kind: 'not_complex' };
    return this.pwnedProblem(password);
  }

  get minLength(): number {
    return this.config.password.minLength;
  }

  isComplexEnough(password: string): boolean {
    return this.config.password.complexity.every((name) => CLASSES[name]?.test(password) ?? true);
  }

  private async pwnedProblem(password: string): Promise<PasswordProblem | null> {
    const mode = this.config.password.checkPwned;
    if (mode === 'off' || password === '') return null;
    if (mode === 'local') {
      commonPasswords ??= loadCommonPasswords();
      return commonPasswords.has(password) || commonPasswords.has(password.toLowerCase())
        ? { kind: 'pwned' }
        : null;
    }
    try {
      return (await this.rangeApiCount(mode, password)) > 0 ? { kind: 'pwned' } : null;
    } catch (error) {
      return { kind: 'pwned_check_failed', error: error instanceof Error ? error.message : String(error) };
    }
  }

  /** HaveIBeenPwned range API: GET {url}{first 5 hex of SHA-1}, lines `SUFFIX:COUNT`. */
  private async rangeApiCount(baseUrl: string, password: string): Promise<number> {
    const hash = createHash('sha1').update(password, 'utf8').digest('hex').toUpperCase();
    const url = `${baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`}${hash.slice(0, 5)}`;
    const response = await fetch(url, {
      headers: { 'Add-Padding': 'true' },
      signal: AbortSignal.timeout(5000),
    });
    if (!response.ok) throw new Error(`range API answered ${response.status}`);
    const suffix = hash.slice(5);
    for (const line of (await response.text()).split('\n')) {
      const [candidate, count] = line.trim().split(':');
      if (candidate?.toUpperCase() === suffix) return Number(count) || 0;
    }
    return 0;
  }
}
