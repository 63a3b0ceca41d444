import { Injectable } from '@nestjs/common';
import { SiteConfigService } from '../../platform/site-config/site-config.service';

export const SETTINGS_KEY = 'notifications.settings';

/** `{"notifier_paused": bool}`, stored as the exact JSON string in site_configs (absent until the first PUT). */
@Injectable()
export class NotificationSettingsService {
  constructor(private readonly siteConfig: SiteConfigService) {}

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

  async store(paused: boolean): Promise<void> {
    await this.siteConfig.set(SETTINGS_KEY, NotificationSettingsService.canonical(paused));
  }
}
