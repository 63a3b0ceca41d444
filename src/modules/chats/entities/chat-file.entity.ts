import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** A file uploaded for chats (an image); its bytes are a blob (`chat-files/<id>`). */
@Entity({ name: 'chat_files' })
@Index('chat_files_owner', ['ownerId', 'createdAt'])
export class ChatFile {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'organization_id', type: 'uuid' })
  organizationId: string;

  @Column({ name: 'owner_id', type: 'uuid' })
  ownerId: string;

  @Column({ type: 'varchar', length: 255 })
  name: string;

  @Column({ name: 'mime_type', type: 'varchar', length: 64 })
  mimeType: string;

  @Column({ name: 'size_bytes', type: 'bigint' })
  sizeBytes: string;

  @Column({ type: 'char', length: 64 })
  sha256: string;

  /** The chat that references it (retention purges files with their chat). */
  @Index('chat_files_chat')
  @Column({ name: 'chat_id', type: 'uuid', nullable: true })
  chatId: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
