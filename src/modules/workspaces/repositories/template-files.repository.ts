import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { EntityManager, Repository } from 'typeorm';
import { TemplateAclEntry, TemplateFile, TemplateVersionFile } from '../entities/template-file.entity';

/** The SQL of uploaded template files, the version → file links and template ACL entries. */
@Injectable()
export class TemplateFilesRepository {
  constructor(
    @InjectRepository(TemplateFile) private readonly files: Repository<TemplateFile>,
    @InjectRepository(TemplateVersionFile) private readonly links: Repository<TemplateVersionFile>,
    @InjectRepository(TemplateAclEntry) private readonly acl: Repository<TemplateAclEntry>,
  ) {}

  findFile(id: string): Promise<TemplateFile | null> {
    return this.files.findOneBy({ id });
  }

  /** Inserts the file unless this uploader stored the same bytes; `created` says which. */
  async insertFile(input: {
    hash: string;
    createdBy: string;
    mimetype: string;
    data: Buffer;
  }): Promise<{ file: TemplateFile; created: boolean }> {
    const existing = await this.files.findOneBy({ hash: input.hash, createdBy: input.createdBy });
    if (existing) return { file: existing, created: false };
    const result = await this.files
      .createQueryBuilder()
      .insert()
      .into(TemplateFile)
      .values(input)
      .orIgnore()
      .returning('id')
      .execute();
    const file = await this.files.findOneBy({ hash: input.hash, createdBy: input.createdBy });
    return { file: file!, created: (result.raw as unknown[]).length > 0 };
  }

  async versionFileId(templateVersionId: string): Promise<string | undefined> {
    return (await this.links.findOneBy({ templateVersionId }))?.fileId;
  }

  async linkVersion(templateVersionId: string, fileId: string): Promise<void> {
    await this.links
      .createQueryBuilder()
      .insert()
      .into(TemplateVersionFile)
      .values({ templateVersionId, fileId })
      .orIgnore()
      .execute();
  }

  /** The ids of the versions made from a file. */
  async versionsOfFile(fileId: string): Promise<string[]> {
    return (await this.links.findBy({ fileId })).map((link) => link.templateVersionId);
  }

  aclOf(templateId: string): Promise<TemplateAclEntry[]> {
    return this.acl.findBy({ templateId });
  }

  /** Applies role changes in the caller's transaction: an empty role removes the entry. */
  async updateAcl(
    manager: EntityManager,
    templateId: string,
    changes: { subjectType: string; subjectId: string; role: string }[],
  ): Promise<void> {
    for (const change of changes) {
      if (change.role === '')
        await manager.delete(TemplateAclEntry, {
          templateId,
          subjectType: change.subjectType,
          subjectId: change.subjectId,
        });
      else
        await manager.upsert(TemplateAclEntry, { templateId, ...change }, [
          'templateId',
          'subjectType',
          'subjectId',
        ]);
    }
  }
}
