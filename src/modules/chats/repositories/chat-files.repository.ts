import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { ChatFile } from '../entities/chat-file.entity';

export function fileFromRow(row: Record<string, unknown>): ChatFile {
  return {
    id: row.id as string,
    organizationId: row.organization_id as string,
    ownerId: row.owner_id as string,
    name: row.name as string,
    mimeType: row.mime_type as string,
    sizeBytes: String(row.size_bytes),
    sha256: (row.sha256 as string).trim(),
    chatId: row.chat_id as string | null,
    createdAt: row.created_at as Date,
  };
}

export interface NewChatFile {
  id: string;
  organizationId: string;
  ownerId: string;
  name: string;
  mimeType: string;
  sizeBytes: number;
  sha256: string;
}

/** `chat_files`: uploaded files (their bytes are blobs) and the chats they are attached to. */
@Injectable()
export class ChatFilesRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** A fresh id (the blob is stored under it before the row exists). */
  async newId(): Promise<string> {
    const [{ id }] = (await this.dataSource.query('SELECT gen_random_uuid() AS id')) as { id: string }[];
    return id;
  }

  async insert(file: NewChatFile): Promise<ChatFile> {
    const [row] = (await this.dataSource.query(
      `INSERT INTO chat_files (id, organization_id, owner_id, name, mime_type, size_bytes, sha256) VALUES ($1, $2, $3, $4, $5, $6, $7)
         RETURNING *`,
      [file.id, file.organizationId, file.ownerId, file.name, file.mimeType, file.sizeBytes, file.sha256],
    )) as Record<string, unknown>[];
    return fileFromRow(row!);
  }

  /** The file with this id (a well-formed uuid), or null. */
  async findById(id: string): Promise<ChatFile | null> {
    const [row] = (await this.dataSource.query('SELECT * FROM chat_files WHERE id = $1', [id])) as Record<
      string,
      unknown
    >[];
    return row ? fileFromRow(row) : null;
  }

  /** Which of these files the owner has. */
  async ownedIds(ids: string[], ownerId: string, manager: EntityManager): Promise<string[]> {
    const files = (await manager.query(
      'SELECT id FROM chat_files WHERE id = ANY($1::uuid[]) AND owner_id = $2',
      [ids, ownerId],
    )) as { id: string }[];
    return files.map((file) => file.id);
  }

  /** Files attached to the chat, not counting these. */
  async countAttachedExcept(chatId: string, ids: string[], manager: EntityManager): Promise<number> {
    const [count] = (await manager.query(
      `SELECT count(*)::int AS n FROM chat_files WHERE chat_id = $1 AND NOT (id = ANY($2::uuid[]))`,
      [chatId, ids],
    )) as { n: number }[];
    return count?.n ?? 0;
  }

  /** Attaches the files not attached yet to the chat. */
  async attach(chatId: string, ids: string[], manager: EntityManager): Promise<void> {
    await manager.query('UPDATE chat_files SET chat_id = $1 WHERE id = ANY($2::uuid[]) AND chat_id IS NULL', [
      chatId,
      ids,
    ]);
  }
}
