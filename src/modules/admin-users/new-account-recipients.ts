import type { EntityManager } from 'typeorm';
import { NOTIFICATION_TEMPLATE_IDS } from '../notifications/template-ids';

/**
 * Spec 3, delete rules: "When deletion leaves no recipient of new-account-request notifications,
 * the caller is set as recipient." Recipients of the "user account created" template are the
 * active administrators (is_admin, Coder `owner` or `user-admin`) whose preference does not
 * disable it (NotificationsModule's rule). Runs inside the delete's transaction; when no
 * recipient remains, the caller's preference for the template is set to enabled.
 * Reads and writes NotificationsModule's preference table by its documented columns; a no-op
 * when that module's tables are absent.
 */
export async function ensureNewAccountRecipient(manager: EntityManager, callerId: string): Promise<boolean> {
  const templateId = NOTIFICATION_TEMPLATE_IDS.userAccountCreated;
  const tables = (await manager.query(
    "SELECT to_regclass('notification_preferences') IS NOT NULL AS prefs, to_regclass('notification_templates') IS NOT NULL AS templates",
  )) as { prefs: boolean; templates: boolean }[];
  if (!tables[0]?.prefs || !tables[0]?.templates) return false;
  const remaining = (await manager.query(
    `SELECT count(*)::int AS n
       FROM users u
       JOIN notification_templates t ON t.id = $1
       LEFT JOIN notification_preferences p ON p.user_id = u.id AND p.template_id = t.id
      WHERE u.type = 'individual' AND u.status = 'active'
        AND (u.is_admin OR 'owner' = ANY(u.site_roles) OR 'user-admin' = ANY(u.site_roles))
        AND NOT COALESCE(p.disabled, NOT t.enabled_by_default)`,
    [templateId],
  )) as { n: number }[];
  if ((remaining[0]?.n ?? 0) > 0) return false;
  const template = (await manager.query('SELECT 1 FROM notification_templates WHERE id = $1', [templateId])) as unknown[];
  if (template.length === 0) return false;
  await manager.query(
    `INSERT INTO notification_preferences (user_id, template_id, disabled) VALUES ($1, $2, false)
     ON CONFLICT (user_id, template_id) DO UPDATE SET disabled = false, updated_at = now()`,
    [callerId, templateId],
  );
  return true;
}
