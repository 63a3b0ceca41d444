import type { MigrationInterface, QueryRunner } from 'typeorm';

export class InboxCounters1796677772405 implements MigrationInterface {
  name = 'InboxCounters1796677772405';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "IDX_inbox_notifications_user_unread"`);
    await queryRunner.query(
      `CREATE TABLE "inbox_counters" ("user_id" bigint NOT NULL, "unread" integer NOT NULL DEFAULT '0', "read_all_before" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_640dd94796c8abb6d3784caf3e5" PRIMARY KEY ("user_id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_inbox_notifications_user_unread" ON "inbox_notifications"  ("user_id", "created_at", "id") WHERE "read_at" IS NULL`,
    );
    await queryRunner.query(
      `ALTER TABLE "inbox_counters" ADD CONSTRAINT "FK_640dd94796c8abb6d3784caf3e5" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    // Backfill: every user with items gets a counter row (the triggers below keep it from now on).
    await queryRunner.query(
      `INSERT INTO inbox_counters (user_id, unread)
       SELECT user_id, count(*) FILTER (WHERE read_at IS NULL) FROM inbox_notifications GROUP BY user_id`,
    );
    // Statement-level triggers with transition tables: one counter update per statement and user, not per
    // row. An item is unread when read_at IS NULL and it was created after the user's read_all_before.
    await queryRunner.query(`CREATE FUNCTION inbox_counters_after_insert() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  INSERT INTO inbox_counters AS c (user_id, unread)
  SELECT n.user_id, count(*) FILTER (WHERE n.read_at IS NULL) FROM inbox_new n GROUP BY n.user_id
  ON CONFLICT (user_id) DO UPDATE SET unread = c.unread + (
    SELECT count(*) FROM inbox_new n
     WHERE n.user_id = EXCLUDED.user_id AND n.read_at IS NULL
       AND (c.read_all_before IS NULL OR n.created_at > c.read_all_before));
  RETURN NULL;
END $fn$`);
    await queryRunner.query(`CREATE FUNCTION inbox_counters_after_update() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  UPDATE inbox_counters c SET unread = GREATEST(c.unread + d.delta, 0)
    FROM (SELECT n.user_id,
                 sum(CASE WHEN n.read_at IS NULL AND (m.read_all_before IS NULL OR n.created_at > m.read_all_before) THEN 1 ELSE 0 END
                   - CASE WHEN o.read_at IS NULL AND (m.read_all_before IS NULL OR o.created_at > m.read_all_before) THEN 1 ELSE 0 END) AS delta
            FROM inbox_new n JOIN inbox_old o ON o.id = n.id
            LEFT JOIN inbox_counters m ON m.user_id = n.user_id
           GROUP BY n.user_id) d
   WHERE c.user_id = d.user_id AND d.delta <> 0;
  RETURN NULL;
END $fn$`);
    await queryRunner.query(`CREATE FUNCTION inbox_counters_after_delete() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  UPDATE inbox_counters c SET unread = GREATEST(c.unread - d.n, 0)
    FROM (SELECT o.user_id, count(*) AS n FROM inbox_old o
            LEFT JOIN inbox_counters m ON m.user_id = o.user_id
           WHERE o.read_at IS NULL AND (m.read_all_before IS NULL OR o.created_at > m.read_all_before)
           GROUP BY o.user_id) d
   WHERE c.user_id = d.user_id;
  RETURN NULL;
END $fn$`);
    await queryRunner.query(
      `CREATE TRIGGER inbox_counters_insert AFTER INSERT ON inbox_notifications
       REFERENCING NEW TABLE AS inbox_new FOR EACH STATEMENT EXECUTE FUNCTION inbox_counters_after_insert()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER inbox_counters_update AFTER UPDATE ON inbox_notifications
       REFERENCING OLD TABLE AS inbox_old NEW TABLE AS inbox_new FOR EACH STATEMENT EXECUTE FUNCTION inbox_counters_after_update()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER inbox_counters_delete AFTER DELETE ON inbox_notifications
       REFERENCING OLD TABLE AS inbox_old FOR EACH STATEMENT EXECUTE FUNCTION inbox_counters_after_delete()`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER inbox_counters_delete ON inbox_notifications`);
    await queryRunner.query(`DROP TRIGGER inbox_counters_update ON inbox_notifications`);
    await queryRunner.query(`DROP TRIGGER inbox_counters_insert ON inbox_notifications`);
    await queryRunner.query(`DROP FUNCTION inbox_counters_after_delete()`);
    await queryRunner.query(`DROP FUNCTION inbox_counters_after_update()`);
    await queryRunner.query(`DROP FUNCTION inbox_counters_after_insert()`);
    await queryRunner.query(`ALTER TABLE "inbox_counters" DROP CONSTRAINT "FK_640dd94796c8abb6d3784caf3e5"`);
    await queryRunner.query(`DROP INDEX "IDX_inbox_notifications_user_unread"`);
    await queryRunner.query(`DROP TABLE "inbox_counters"`);
    await queryRunner.query(
      `CREATE INDEX "IDX_inbox_notifications_user_unread" ON "inbox_notifications" USING btree ("user_id") WHERE (read_at IS NULL)`,
    );
  }
}
