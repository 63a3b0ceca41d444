import {
  compileEmailDomainCheck,
  emailProblem,
  usernameProblem,
} from '../../../src/modules/identity/gitea-rules';

describe('identity: account name and email rules (Gitea)', () => {
  it('accepts ordinary names', () => {
    expect(usernameProblem('alice')).toBeNull();
    expect(usernameProblem('a.b-c_d')).toBeNull();
  });

  it('refuses characters outside alpha, digits, dash, underscore and dot', () => {
    expect(usernameProblem('al ice')).toBe(
      'name is invalid [al ice]: must be valid alpha or numeric or dash(-_) or dot characters',
    );
  });

  it('refuses reserved names case-insensitively', () => {
    expect(usernameProblem('Admin')).toBeNull(); // not reserved in Gitea
    expect(usernameProblem('Login')).toBe('name is reserved [name: login]');
    expect(usernameProblem('ghost')).toBe('name is reserved [name: ghost]');
  });

  it('refuses reserved suffix patterns', () => {
    expect(usernameProblem('alice.keys')).toBe('name pattern is not allowed [pattern: *.keys]');
    expect(usernameProblem('logo.PNG')).toBe('name pattern is not allowed [pattern: *.png]');
  });

  it('checks emails like validateEmailBasic', () => {
    expect(emailProblem('alice@example.com')).toBeNull();
    expect(emailProblem('')).toBe('e-mail invalid [email: ]');
    expect(emailProblem('al ice@example.com')).toBe(
      'e-mail address contains unsupported character [email: al ice@example.com]',
    );
    expect(emailProblem('-alice@example.com')).toBe('e-mail invalid [email: -alice@example.com]');
    expect(emailProblem('a..b@example.com')).toBe('e-mail invalid [email: a..b@example.com]');
    expect(emailProblem('a,b@example.com')).toBe('e-mail invalid [email: a,b@example.com]');
  });

  it('applies the allowlist before the blocklist, globs matching dots', () => {
    const allowOnly = compileEmailDomainCheck(['*.example.com'], ['bad.example.com']);
    expect(allowOnly('a@mail.example.com')).toBe(true);
    expect(allowOnly('a@bad.example.com')).toBe(true); // the allowlist decides alone
    expect(allowOnly('a@example.org')).toBe(false);
    const blockOnly = compileEmailDomainCheck([], ['*.test']);
    expect(blockOnly('a@x.y.TEST')).toBe(false);
    expect(blockOnly('a@example.com')).toBe(true);
  });
});
