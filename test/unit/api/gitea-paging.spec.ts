import { giteaLinkHeader } from '../../../src/api/gitea/gitea-link-header';
import { GiteaPage, giteaPaging } from '../../../src/api/gitea/gitea-page';

describe('Gitea paging', () => {
  it.each([
    [{}, { page: 1, limit: 30, offset: 0 }],
    [
      { page: '0', limit: '0' },
      { page: 1, limit: 30, offset: 0 },
    ],
    [
      { page: '3', limit: '10' },
      { page: 3, limit: 10, offset: 20 },
    ],
    [
      { page: '2', limit: '500' },
      { page: 2, limit: 50, offset: 50 },
    ],
    [
      { page: 'x', limit: '-5' },
      { page: 1, limit: 30, offset: 0 },
    ],
  ])('%j → %j', (query, expected) => {
    expect(giteaPaging(query)).toEqual(expected);
  });

  const base = 'http://h/';
  it('first page: next and last', () => {
    expect(giteaLinkHeader(base, '/api/v1/admin/users?limit=10', 1, 10, 25)).toBe(
      '<http://h/api/v1/admin/users?limit=10&page=2>; rel="next",<http://h/api/v1/admin/users?limit=10&page=3>; rel="last"',
    );
  });
  it('middle page: next, last, first, prev', () => {
    expect(giteaLinkHeader(base, '/x?page=2&limit=10&q=a', 2, 10, 25)).toBe(
      '<http://h/x?limit=10&page=3&q=a>; rel="next",<http://h/x?limit=10&page=3&q=a>; rel="last",<http://h/x?limit=10&page=1&q=a>; rel="first",<http://h/x?limit=10&page=1&q=a>; rel="prev"',
    );
  });
  it('last page: first and prev', () => {
    expect(giteaLinkHeader(base, '/x?page=3&limit=10', 3, 10, 25)).toBe(
      '<http://h/x?limit=10&page=1>; rel="first",<http://h/x?limit=10&page=2>; rel="prev"',
    );
  });
  it('single page: nothing', () => {
    expect(giteaLinkHeader(base, '/x', 1, 30, 3)).toBe('');
  });
});

describe('GiteaPage without @GiteaPaged()', () => {
  it('refuses to be serialised, so a list route that forgot the decorator fails its tests', () => {
    const page = new GiteaPage([1, 2], 2, giteaPaging({}));
    expect(() => JSON.stringify(page)).toThrow(/@GiteaPaged/);
  });
});
