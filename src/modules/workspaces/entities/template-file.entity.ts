import { Column, CreateDateColumn, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

/** An uploaded file (Coder's `files`): a template archive, stored as tar; one row per (content, uploader). */
@Entity({ name: 'template_files' })
@Index('template_files_hash_creator', ['hash', 'createdBy'], { unique: true })
export class TemplateFile {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  /** Lowercase hex SHA-256 of `data`. */
  @Column({ type: 'varchar', length: 64 })
  hash: string;

  @Column({ name: 'created_by', type: 'uuid' })
  createdBy: string;

  @Column({ type: 'varchar', length: 64 })
  mimetype: string;

  @Column({ type: 'bytea' })
  data: Buffer;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}

/** The file a template version was made from (or its definition's archive, written at the first read). */
@Entity({ name: 'template_version_files' })
export class TemplateVersionFile {
  @PrimaryColumn({ name: 'template_version_id', type: 'uuid' })
  templateVersionId: string;

  @Index('template_version_files_file')
  @Column({ name: 'file_id', type: 'uuid' })
  fileId: string;
}

/** A template's ACL entry (Coder's template `user_acl`/`group_acl`): a user or group with role `use` or `admin`. */
@Entity({ name: 'template_acl_entries' })
export class TemplateAclEntry {
  @PrimaryColumn({ name: 'template_id', type: 'uuid' })
  templateId: string;

  /** `user` or `group`. */
  @PrimaryColumn({ name: 'subject_type', type: 'varchar', length: 8 })
  subjectType: string;

  @PrimaryColumn({ name: 'subject_id', type: 'uuid' })
  subjectId: string;

  /** `use` or `admin`. */
  @Column({ type: 'varchar', length: 8 })
  role: string;
}
