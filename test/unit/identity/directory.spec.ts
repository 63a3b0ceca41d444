import { IdentityDirectory } from '../../../src/modules/identity/identity-directory.service';
import type {
  AccountNameRow,
  AccountsRepository,
  DirectoryRepository,
} from '../../../src/modules/identity/repositories/accounts.repository';

const ROW: AccountNameRow = {
  id: '7',
  uuid: '0b0e7a4c-2f54-4c55-9a36-5d3c1d9e0f11',
  name: 'alice',
  full_name: 'Alice A.',
  avatar_url: '',
};

function directory(): { directory: IdentityDirectory; asked: unknown[][] } {
  const asked: unknown[][] = [];
  const rows = {
    namesByIds: (ids: string[]) => {
      asked.push(ids);
      return Promise.resolve(ids.includes(ROW.id) ? [ROW] : []);
    },
    namesByUuids: (uuids: string[]) => {
      asked.push(uuids);
      return Promise.resolve(uuids.includes(ROW.uuid) ? [ROW] : []);
    },
    membersOf: () => Promise.resolve([{ user_id: '7', roles: null }]),
  } as unknown as DirectoryRepository;
  return { directory: new IdentityDirectory(rows, {} as AccountsRepository), asked };
}

describe('identity: IdentityDirectory', () => {
  it('asks once per distinct well-formed id and maps the names', async () => {
    const { directory: d, asked } = directory();
    const names = await d.namesByIds(['7', '7', 'x', '8']);
    expect(asked).toEqual([['7', '8']]);
    expect(names.get('7')).toEqual({
      id: '7',
      uuid: ROW.uuid,
      name: 'alice',
      fullName: 'Alice A.',
      avatarUrl: '',
    });
    expect(names.has('8')).toBe(false);
  });

  it('does not query for no (valid) ids', async () => {
    const { directory: d, asked } = directory();
    expect((await d.namesByIds([])).size).toBe(0);
    expect((await d.namesByUuids(['not-a-uuid'])).size).toBe(0);
    expect(asked).toEqual([]);
  });

  it('keys names by uuid', async () => {
    const { directory: d } = directory();
    expect((await d.namesByUuids([ROW.uuid])).get(ROW.uuid)?.name).toBe('alice');
  });

  it('gives members with roles as a list', async () => {
    const { directory: d } = directory();
    expect(await d.membersOf('3')).toEqual([{ userId: '7', roles: [] }]);
  });
});
