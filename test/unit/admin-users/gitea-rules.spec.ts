import type { Type } from '@nestjs/common';
import { giteaValidationMessage } from '../../../src/api/gitea/gitea-validation';
import { createValidationPipe } from '../../../src/api/validation';
import { InvalidError } from '../../../src/platform/errors/domain-error';
import { CreateUserOptionDto } from '../../../src/modules/admin-users/dto/create-user-option.dto';
import { EditUserOptionDto } from '../../../src/modules/admin-users/dto/edit-user-option.dto';
import {
  compileEmailDomainCheck,
  emailProblem,
  isValidUsername,
  parseGoBool,
  usernameProblem,
} from '../../../src/modules/identity/gitea-rules';

describe('Gitea account rules', () => {
  it.each([
    ['alice', true],
    ['a.b-c_d', true],
    ['9lives', true],
    ['-lead', false],
    ['.dot', false],
    ['trail-', false],
    ['a--b', false],
    ['a._b', false],
    ['bad name', false],
    ['ünï', false],
  ])('username %s valid=%s', (name, valid) => {
    expect(isValidUsername(name)).toBe(valid);
  });

  it.each([
    ['Explore', 'name is reserved [name: explore]'],
    ['gitea-actions', 'name is reserved [name: gitea-actions]'],
    ['x.RSS', 'name pattern is not allowed [pattern: *.rss]'],
    ['y.png', 'name pattern is not allowed [pattern: *.png]'],
    ['fine', null],
  ])('usernameProblem(%s)', (name, problem) => {
    expect(usernameProblem(name)).toBe(problem);
  });

  it.each([
    ['', 'e-mail invalid [email: ]'],
    ['a@b.c', null],
    ['a+tag/x@b.io', null],
    ['a@localhost', null],
    ['a b@c.io', 'e-mail address contains unsupported character [email: a b@c.io]'],
    ['a@-c.io', 'e-mail address contains unsupported character [email: a@-c.io]'],
    ['-a@c.io', 'e-mail invalid [email: -a@c.io]'],
    ['.a@c.io', 'e-mail invalid [email: .a@c.io]'],
    ['a.@c.io', 'e-mail invalid [email: a.@c.io]'],
    ['a..b@c.io', 'e-mail invalid [email: a..b@c.io]'],
    ['a,b@c.io', 'e-mail invalid [email: a,b@c.io]'],
  ])('emailProblem(%j)', (email, problem) => {
    expect(emailProblem(email)).toBe(problem);
  });

  it('domain lists: the allowlist wins; globs match across dots; case-insensitive', () => {
    const allow = compileEmailDomainCheck(['example.org', '*.corp.io'], ['example.org']);
    expect(allow('u@EXAMPLE.org')).toBe(true);
    expect(allow('u@a.b.corp.io')).toBe(true);
    expect(allow('u@corp.io')).toBe(false);
    expect(allow('u@example1.org')).toBe(false);
    const block = compileEmailDomainCheck([], ['*.spam.io', 'bad.{com,net}']);
    expect(block('u@x.spam.io')).toBe(false);
    expect(block('u@spam.io')).toBe(true);
    expect(block('u@bad.net')).toBe(false);
    expect(compileEmailDomainCheck([], [])('u@anything')).toBe(true);
  });

  it('ParseBool', () => {
    expect(['1', 't', 'T', 'TRUE', 'true', 'True'].map(parseGoBool)).toEqual(Array(6).fill(true));
    expect(['0', 'f', 'F', 'FALSE', 'false', 'False'].map(parseGoBool)).toEqual(Array(6).fill(false));
    expect(['yes', 'tRue', '', undefined].map(parseGoBool)).toEqual([null, null, null, null]);
  });
});

describe('Gitea binding (DTOs through the global ValidationPipe and the Gitea formatter)', () => {
  const pipe = createValidationPipe();
  const bind = (dto: Type<unknown>) => async (body: unknown) => {
    try {
      await pipe.transform(body, { type: 'body', metatype: dto });
    } catch (error) {
      if (!(error instanceof InvalidError)) throw error;
      return giteaValidationMessage(error.fields, error.message);
    }
    return null;
  };
  const bindCreateUser = bind(CreateUserOptionDto);
  const bindEditUser = bind(EditUserOptionDto);

  it('reports the first failing field in declaration order', async () => {
    expect(await bindCreateUser({ email: 'bad', username: '' })).toBe('[Username]: Required');
    expect(await bindCreateUser({ username: 'ok', email: 'bad' })).toBe('[Email]: Email');
    expect(await bindCreateUser({ username: 'ok', email: `${'a'.repeat(250)}@b.io` })).toBe(
      '[Email]: MaxSize',
    );
    expect(await bindCreateUser({ username: 'ok', email: 'a@b.io', visibility: '' })).toBeNull();
  });

  it('rules of one field apply in the order of its binding tag', async () => {
    expect(await bindCreateUser({ username: 'bad name'.repeat(6), email: 'a@b.io' })).toBe(
      '[Username]: invalid username',
    );
    expect(await bindCreateUser({ username: 'ok', email: `bad${'a'.repeat(260)}` })).toBe('[Email]: Email');
    expect(await bindEditUser({ login_name: 'x', website: `ftp://${'a'.repeat(260)}` })).toBe(
      '[Website]: Url',
    );
    expect(
      await bindCreateUser({ username: 'ok', email: 'a@b.io', source_id: 0, created_at: undefined }),
    ).toBeNull();
  });

  it('type errors come from the decoder, before any rule', async () => {
    expect(await bindCreateUser({ username: '', email: 'a@b.io', restricted: 'yes' })).toBe(
      '[]: json: cannot unmarshal string into Go struct field CreateUserOption.restricted of type bool',
    );
    expect(await bindCreateUser([])).toBe(
      '[]: json: cannot unmarshal array into Go value of type api.CreateUserOption',
    );
    expect(await bindCreateUser([{ username: 'ok', email: 'a@b.io' }])).toBe(
      '[]: json: cannot unmarshal array into Go value of type api.CreateUserOption',
    );
    expect(await bindEditUser({ login_name: 'x', max_repo_creation: 1.5 })).toMatch(/of type int64$/);
  });

  it('JSON null leaves a field unset; unknown fields are dropped', async () => {
    const dto = (await pipe.transform(
      { login_name: 'x', full_name: null, extra: 1 },
      { type: 'body', metatype: EditUserOptionDto },
    )) as EditUserOptionDto;
    expect(dto.full_name).toBeUndefined();
    expect(dto).not.toHaveProperty('extra');
    expect(await bindEditUser({ login_name: null })).toBe('[LoginName]: Required');
  });

  it('created_at must be RFC 3339', async () => {
    expect(await bindCreateUser({ username: 'ok', email: 'a@b.io', created_at: 'yesterday' })).toMatch(
      /^\[\]: parsing time/,
    );
    expect(
      await bindCreateUser({ username: 'ok', email: 'a@b.io', created_at: '2020-01-02T03:04:05+02:00' }),
    ).toBeNull();
  });

  it('website must be http(s)', async () => {
    expect(await bindEditUser({ login_name: 'x', website: 'javascript:alert(1)' })).toBe('[Website]: Url');
    expect(await bindEditUser({ login_name: 'x', website: '' })).toBeNull();
    expect(await bindEditUser({ login_name: 'x', website: 'https://a.b:8080/x' })).toBeNull();
  });
});

describe("the reference's reserved names and patterns (gitea.md 6.2), written out", () => {
  // Names that also pass the character rule are answered "reserved"; the others are refused as invalid first.
  const reserved = [
    'api',
    'metrics',
    'v2',
    'assets',
    'attachments',
    'avatar',
    'avatars',
    'repo-avatars',
    'captcha',
    'login',
    'org',
    'repo',
    'user',
    'explore',
    'issues',
    'pulls',
    'milestones',
    'notifications',
    'favicon.ico',
    'manifest.json',
    'robots.txt',
    'sitemap.xml',
    'ssh_info',
    'swagger.v1.json',
    'ghost',
    'gitea-actions',
  ];
  it.each(reserved)('%s is reserved (any case)', (name) => {
    expect(usernameProblem(name)).toBe(`name is reserved [name: ${name}]`);
    expect(usernameProblem(name.toUpperCase())).toBe(`name is reserved [name: ${name}]`);
  });
  it.each(['.', '..', '.well-known'])('%s is refused', (name) => {
    expect(usernameProblem(name)).toBe(
      `name is invalid [${name}]: must be valid alpha or numeric or dash(-_) or dot characters`,
    );
  });
  it.each(['keys', 'gpg', 'rss', 'atom', 'png'])('*.%s is a reserved pattern', (suffix) => {
    expect(usernameProblem(`someone.${suffix}`)).toBe(`name pattern is not allowed [pattern: *.${suffix}]`);
    expect(usernameProblem(`someone${suffix}`)).toBeNull();
  });
  it.each(['apis', 'my-api', 'ghost1', 'users'])('%s is usable', (name) => {
    expect(usernameProblem(name)).toBeNull();
  });
});
