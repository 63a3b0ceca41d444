import { Injectable, Optional } from '@nestjs/common';
import { AuditLog } from '../../platform/audit/audit-log';
import { TransactionRunner } from '../../platform/database/transaction-runner.service';
import { SiteConfigService } from '../../platform/site-config/site-config.service';

export const SETTINGS_KEY = 'notifications.settings';

/** `{"notifier_paused": bool}`, stored as the exact JSON string in site_configs (absent until the first PUT). */
@Injectable()
export class NotificationSettingsService {
  constructor(
    private readonly siteConfig: SiteConfigService,
    private readonly transactions: TransactionRunner,
    @Optional() private readonly audit?: AuditLog,
  ) {}

  /** The stored string, or undefined when never set. */
  raw(): Promise<string | undefined> {
    return this.siteConfig.get(SETTINGS_KEY);
  }

  async isPaused(): Promise<boolean> {
    const raw = await this.raw();
    if (raw === undefined) return false;
    try {
      return (JSON.parse(raw) as { notifier_paused?: unknown }).notifier_paused === true;
    } catch {
      return false;
    }
  }

  static canonical(paused: boolean): string {
    return JSON.stringify({ notifier_paused: paused });
  }

  /** Stores the settings and their audit entry in one transaction. */
  async store(paused: boolean): Promise<void> {
    const before = await this.isPaused();
    await this.transactions.run(async (tx) => {
      await this.siteConfig.set(SETTINGS_KEY, NotificationSettingsService.canonical(paused), tx.manager);
      await this.audit?.record(tx.manager, {
        action: 'write',
        resourceType: 'notifications_settings',
        resourceId: SETTINGS_KEY,
        resourceTarget: 'notification settings',
        diff: { notifier_paused: { old: before, new: paused } },
      });
    });
  }
}
