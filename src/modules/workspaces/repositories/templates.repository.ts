import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { Template } from '../entities/template.entity';
import type { TemplateVersion } from '../entities/template-version.entity';
import type { TemplateVersionPreset } from '../entities/template-version-preset.entity';
import type { TemplateDefinition } from '../template-definition';

/** Coder's TemplateBuildTimeStats row: percentiles (milliseconds) of one transition's successful builds. */
export interface BuildTimeRow {
  template_id: string;
  transition: string;
  p50: number | string;
  p95: number | string;
}

/** Templates, their versions and the versions' presets. Writes take the caller's transaction. */
@Injectable()
export class TemplatesRepository {
  constructor(private readonly dataSource: DataSource) {}

  // ---------------------------------------------------------------- versions

  async versionNameTaken(manager: EntityManager, templateId: string, name: string): Promise<boolean> {
    const [taken] = (await manager.query(
      'SELECT 1 FROM template_versions WHERE template_id = $1 AND name = $2',
      [templateId, name],
    )) as unknown[];
    return Boolean(taken);
  }

  /** A fresh uuid from the database (the id a version gets before its import job is queued). */
  async newId(manager: EntityManager): Promise<string> {
    const versionId = (await manager.query('SELECT gen_random_uuid() AS id')) as { id: string }[];
    return versionId[0]!.id;
  }

  async insertVersion(
    manager: EntityManager,
    input: {
      id: string;
      templateId: string | null;
      organizationId: string;
      name: string;
      message: string;
      definition: TemplateDefinition;
      jobId: string;
      createdBy: string;
    },
  ): Promise<TemplateVersion> {
    const [row] = (await manager.query(
      `INSERT INTO template_versions (id, template_id, organization_id, name, message, definition, job_id, created_by)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`,
      [
        input.id,
        input.templateId,
        input.organizationId,
        input.name,
        input.message,
        JSON.stringify(input.definition),
        input.jobId,
        input.createdBy,
      ],
    )) as Record<string, unknown>[];
    return versionFromRow(row!);
  }

  async insertPreset(
    manager: EntityManager,
    versionId: string,
    preset: {
      name: string;
      parameters: Record<string, string>;
      desiredInstances: number | null;
      isDefault: boolean;
    },
  ): Promise<void> {
    await manager.query(
      `INSERT INTO template_version_presets (template_version_id, name, parameters, desired_instances, is_default)
           VALUES ($1, $2, $3, $4, $5)`,
      [versionId, preset.name, JSON.stringify(preset.parameters), preset.desiredInstances, preset.isDefault],
    );
  }

  async findVersion(
    id: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<TemplateVersion | undefined> {
    const [row] = (await manager.query('SELECT * FROM template_versions WHERE id = $1', [id])) as Record<
      string,
      unknown
    >[];
    return row ? versionFromRow(row) : undefined;
  }

  /** A template's versions, oldest first. */
  async versionsOf(templateId: string): Promise<TemplateVersion[]> {
    const rows = (await this.dataSource.query(
      'SELECT * FROM template_versions WHERE template_id = $1 ORDER BY created_at, id',
      [templateId],
    )) as Record<string, unknown>[];
    return rows.map(versionFromRow);
  }

  async attachVersion(manager: EntityManager, versionId: string, templateId: string): Promise<void> {
    await manager.query('UPDATE template_versions SET template_id = $1 WHERE id = $2', [
      templateId,
      versionId,
    ]);
  }

  async presetsOf(versionId: string): Promise<TemplateVersionPreset[]> {
    const rows = (await this.dataSource.query(
      'SELECT * FROM template_version_presets WHERE template_version_id = $1 ORDER BY name',
      [versionId],
    )) as Record<string, unknown>[];
    return rows.map(presetFromRow);
  }

  // ---------------------------------------------------------------- templates

  async nameTaken(manager: EntityManager, organizationId: string, lowerName: string): Promise<boolean> {
    const [taken] = (await manager.query(
      'SELECT 1 FROM templates WHERE organization_id = $1 AND lower_name = $2 AND deleted = false',
      [organizationId, lowerName],
    )) as unknown[];
    return Boolean(taken);
  }

  async insertTemplate(
    manager: EntityManager,
    input: {
      organizationId: string;
      name: string;
      displayName: string;
      description: string;
      icon: string;
      activeVersionId: string;
      createdBy: string;
    },
  ): Promise<Template> {
    const [row] = (await manager.query(
      `INSERT INTO templates (organization_id, name, lower_name, display_name, description, icon, active_version_id, created_by)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`,
      [
        input.organizationId,
        input.name,
        input.name.toLowerCase(),
        input.displayName,
        input.description,
        input.icon,
        input.activeVersionId,
        input.createdBy,
      ],
    )) as Record<string, unknown>[];
    return templateFromRow(row!);
  }

  async setActiveVersion(manager: EntityManager, templateId: string, versionId: string): Promise<void> {
    await manager.query('UPDATE templates SET active_version_id = $2, updated_at = now() WHERE id = $1', [
      templateId,
      versionId,
    ]);
  }

  /** A template that is not deleted. */
  async findLive(id: string): Promise<Template | undefined> {
    const [row] = (await this.dataSource.query('SELECT * FROM templates WHERE id = $1 AND deleted = false', [
      id,
    ])) as Record<string, unknown>[];
    return row ? templateFromRow(row) : undefined;
  }

  /** The id and organization of a live template by its id as text (authcheck's object loader). */
  async rbacRow(id: string): Promise<{ id: string; organization_id: string } | undefined> {
    const [row] = (await this.dataSource.query(
      'SELECT id, organization_id FROM templates WHERE id::text = $1 AND deleted = false',
      [id],
    )) as { id: string; organization_id: string }[];
    return row;
  }

  /** What a version's job shows of its template (deleted or not). */
  async header(id: string): Promise<{ name: string; display_name: string; icon: string } | undefined> {
    const [template] = (await this.dataSource.query(
      'SELECT name, display_name, icon FROM templates WHERE id = $1',
      [id],
    )) as { name: string; display_name: string; icon: string }[];
    return template;
  }

  async listByOrganization(organizationId: string): Promise<Template[]> {
    const rows = (await this.dataSource.query(
      'SELECT * FROM templates WHERE organization_id = $1 AND deleted = false ORDER BY lower_name',
      [organizationId],
    )) as Record<string, unknown>[];
    return rows.map(templateFromRow);
  }

  /** The 50th and 95th percentile of each template's successful builds per transition. */
  async buildTimes(ids: string[]): Promise<BuildTimeRow[]> {
    return (await this.dataSource.query(
      `SELECT w.template_id, b.transition,
              percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM j.completed_at - j.started_at) * 1000) AS p50,
              percentile_cont(0.95) WITHIN GROUP (ORDER BY extract(epoch FROM j.completed_at - j.started_at) * 1000) AS p95
         FROM workspace_builds b JOIN workspaces w ON w.id = b.workspace_id JOIN provisioner_jobs j ON j.id = b.job_id
        WHERE w.template_id = ANY($1::uuid[]) AND j.status = 'succeeded' AND j.started_at IS NOT NULL
          AND j.completed_at IS NOT NULL
        GROUP BY w.template_id, b.transition`,
      [ids],
    )) as BuildTimeRow[];
  }

  /** Live workspaces per template. */
  async workspaceCounts(ids: string[]): Promise<Map<string, number>> {
    const rows = (await this.dataSource.query(
      `SELECT template_id, count(*)::int AS count FROM workspaces WHERE deleted = false AND template_id = ANY($1::uuid[])
        GROUP BY template_id`,
      [ids],
    )) as { template_id: string; count: number }[];
    return new Map(rows.map((row) => [row.template_id, row.count]));
  }
}

export function templateFromRow(row: Record<string, unknown>): Template {
  return {
    id: row.id as string,
    organizationId: row.organization_id as string,
    name: row.name as string,
    lowerName: row.lower_name as string,
    displayName: row.display_name as string,
    description: row.description as string,
    icon: row.icon as string,
    activeVersionId: row.active_version_id as string,
    createdBy: row.created_by as string,
    deleted: row.deleted as boolean,
    createdAt: row.created_at as Date,
    updatedAt: row.updated_at as Date,
  };
}

export function versionFromRow(row: Record<string, unknown>): TemplateVersion {
  return {
    id: row.id as string,
    templateId: row.template_id as string | null,
    organizationId: row.organization_id as string,
    name: row.name as string,
    message: row.message as string,
    provisioner: row.provisioner as string,
    definition: row.definition as TemplateDefinition,
    jobId: row.job_id as string,
    createdBy: row.created_by as string,
    createdAt: row.created_at as Date,
    updatedAt: row.updated_at as Date,
  };
}

export function presetFromRow(row: Record<string, unknown>): TemplateVersionPreset {
  return {
    id: row.id as string,
    templateVersionId: row.template_version_id as string,
    name: row.name as string,
    parameters: row.parameters as Record<string, string>,
    desiredInstances: row.desired_instances as number | null,
    isDefault: row.is_default as boolean,
    createdAt: row.created_at as Date,
  };
}
