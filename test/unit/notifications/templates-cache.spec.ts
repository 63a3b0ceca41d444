import type { EntityManager } from 'typeorm';
import type { NotificationTemplate } from '../../../src/modules/notifications/entities/notification-template.entity';
import { NotificationTemplatesService } from '../../../src/modules/notifications/notification-templates.service';
import type { NotificationTemplatesRepository } from '../../../src/modules/notifications/notification-templates.repository';

/** A repository whose reads wait until released, counting them by connection (pool or a transaction). */
function slowRepository() {
  const reads: string[] = [];
  const waiting: (() => void)[] = [];
  const repository = {
    findById(id: string, manager?: EntityManager): Promise<NotificationTemplate | null> {
      reads.push(manager ? `tx:${id}` : id);
      return new Promise((resolve) =>
        waiting.push(() =>
          resolve(id === 'missing' ? null : ({ id, name: `template ${id}` } as NotificationTemplate)),
        ),
      );
    },
  } as unknown as NotificationTemplatesRepository;
  const release = () => waiting.splice(0).forEach((resolve) => resolve());
  return { repository, reads, release };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('NotificationTemplatesService.find', () => {
  it('makes one read for a burst of first uses of a template, and none once it is cached', async () => {
    const { repository, reads, release } = slowRepository();
    const service = new NotificationTemplatesService(repository);

    const burst = Array.from({ length: 50 }, () => service.find('a'));
    const other = service.find('b');
    await settle();
    expect(reads).toEqual(['a', 'b']);
    release();
    const found = await Promise.all(burst);
    expect(new Set(found).size).toBe(1);
    expect(found[0]).toMatchObject({ id: 'a' });
    await expect(other).resolves.toMatchObject({ id: 'b' });

    await expect(service.find('a')).resolves.toBe(found[0]);
    expect(reads).toEqual(['a', 'b']);
  });

  it('reads an unknown template again next time (nothing cached), and a transaction reads on its own connection', async () => {
    const { repository, reads, release } = slowRepository();
    const service = new NotificationTemplatesService(repository);

    const missing = service.find('missing');
    await settle();
    release();
    await expect(missing).resolves.toBeNull();
    const again = service.find('missing');
    await settle();
    release();
    await expect(again).resolves.toBeNull();
    expect(reads).toEqual(['missing', 'missing']);

    const pooled = service.find('c');
    const inTransaction = service.find('c', {} as EntityManager);
    await settle();
    expect(reads).toEqual(['missing', 'missing', 'c', 'tx:c']);
    release();
    await expect(Promise.all([pooled, inTransaction])).resolves.toEqual([
      expect.objectContaining({ id: 'c' }),
      expect.objectContaining({ id: 'c' }),
    ]);
  });
});
