import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/**
 * What chats read of their owners (chats keep the user's uuid). SQL on identity's `users` table,
 * kept here until identity offers these reads (issue 32 item 2).
 */
@Injectable()
export class ChatOwnersRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The owner's name and full name, or undefined when the account is gone. */
  async names(ownerUuid: string): Promise<{ name: string; full_name: string } | undefined> {
    const [owner] = (await this.dataSource.query('SELECT name, full_name FROM users WHERE uuid = $1', [
      ownerUuid,
    ])) as { name: string; full_name: string }[];
    return owner;
  }

  /** The owner's internal id, or null when the account is gone. */
  async internalId(ownerUuid: string): Promise<string | null> {
    const [owner] = (await this.dataSource.query('SELECT id FROM users WHERE uuid = $1', [ownerUuid])) as {
      id: string;
    }[];
    return owner ? String(owner.id) : null;
  }
}
