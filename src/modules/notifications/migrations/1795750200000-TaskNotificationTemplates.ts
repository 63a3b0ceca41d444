import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Task Paused and Task Resumed (issue 17.5): what the workspaces module requests when a task is paused or resumed. */
const TEMPLATES = [
  {
    id: 'd6ae6d7e-0b0b-4d8e-9a52-5b7c6f3f1a01',
    name: 'Task Paused',
    title: 'Task "{{.Labels.task}}" paused',
    body: 'Your task **{{.Labels.task}}** was paused{{if .Labels.pause_reason}} ({{.Labels.pause_reason}}){{end}}.',
  },
  {
    id: 'd6ae6d7e-0b0b-4d8e-9a52-5b7c6f3f1a02',
    name: 'Task Resumed',
    title: 'Task "{{.Labels.task}}" resumed',
    body: 'Your task **{{.Labels.task}}** was resumed.',
  },
];

export class TaskNotificationTemplates1795750200000 implements MigrationInterface {
  name = 'TaskNotificationTemplates1795750200000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    for (const t of TEMPLATES) {
      await queryRunner.query(
        `INSERT INTO "notification_templates" ("id", "name", "title_template", "body_template", "actions", "group", "method", "kind", "enabled_by_default", "to_inbox") VALUES ($1, $2, $3, $4, $5::jsonb, 'Task Events', NULL, 'system', true, true)`,
        [
          t.id,
          t.name,
          t.title,
          t.body,
          JSON.stringify([{ label: 'View task', url: '{{ base_url }}/tasks' }]),
        ],
      );
    }
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM "notification_templates" WHERE "id" = ANY($1::uuid[])`, [
      TEMPLATES.map((t) => t.id),
    ]);
  }
}
