import { Injectable } from '@nestjs/common';
import { SecretBox } from '../../../platform/crypto/secret-box';
import { InvalidError } from '../../../platform/errors/domain-error';
import { generateEd25519KeyPair } from './ssh-key';
import { DEFAULT_QUIET_HOURS, nextQuietHoursStart, parseQuietHours } from './quiet-hours';
import { UserConfigsRepository } from './user-configs.repository';

export const TERMINAL_FONTS = [
  '',
  'geist-mono',
  'ibm-plex-mono',
  'fira-code',
  'source-code-pro',
  'jetbrains-mono',
];
export const THEME_MODES = ['', 'sync', 'single'];
export const LIGHT_THEMES = ['light', 'light-protan-deuter', 'light-tritan'];
export const DARK_THEMES = ['dark', 'dark-protan-deuter', 'dark-tritan'];

export interface Appearance {
  theme_preference: string;
  terminal_font: string;
  theme_mode: string;
  theme_light: string;
  theme_dark: string;
}

export interface Preferences {
  agent_chat_send_shortcut: string;
  code_diff_display_mode: string;
  shell_tool_display_mode: string;
  task_notification_alert_dismissed: boolean;
  thinking_display_mode: string;
}

const DEFAULT_APPEARANCE: Appearance = {
  theme_preference: '',
  terminal_font: '',
  theme_mode: '',
  theme_light: '',
  theme_dark: '',
};

const DEFAULT_PREFERENCES: Preferences = {
  agent_chat_send_shortcut: 'enter',
  code_diff_display_mode: 'auto',
  shell_tool_display_mode: 'auto',
  task_notification_alert_dismissed: false,
  thinking_display_mode: 'auto',
};

/**
 * A user's own settings (Coder's per-user reads of issue 48 item 8), each a row of `user_configs`:
 * appearance, preferences, quiet hours, the Git SSH key (a real ed25519 pair, generated at the first
 * read, the private key sealed), and small chat settings. Callers authorize the target user first.
 */
@Injectable()
export class UserSettingsService {
  constructor(
    private readonly rows: UserConfigsRepository,
    private readonly box: SecretBox,
  ) {}

  private async json<T extends object>(userId: string, key: string, fallback: T): Promise<T> {
    const row = await this.rows.find(userId, key);
    if (!row) return { ...fallback };
    try {
      return { ...fallback, ...(JSON.parse(row.value) as Partial<T>) };
    } catch {
      return { ...fallback };
    }
  }

  /** A small JSON setting (chat settings), defaults filled in. */
  read<T extends object>(userId: string, key: string, fallback: T): Promise<T> {
    return this.json(userId, key, fallback);
  }

  async write<T extends object>(userId: string, key: string, value: T): Promise<T> {
    await this.rows.upsert(userId, key, JSON.stringify(value));
    return value;
  }

  appearance(userId: string): Promise<Appearance> {
    return this.json(userId, 'appearance', DEFAULT_APPEARANCE);
  }

  /**
   * Coder's rules: the font is one of its names; `theme_mode` empty leaves mode and slots alone; a slot
   * left empty keeps what was stored; `sync` needs both slots.
   */
  async setAppearance(
    userId: string,
    input: {
      theme_preference: string;
      terminal_font: string;
      theme_mode?: string;
      theme_light?: string;
      theme_dark?: string;
    },
  ): Promise<Appearance> {
    const fields: { field: string; detail: string }[] = [];
    if (!TERMINAL_FONTS.includes(input.terminal_font))
      fields.push({
        field: 'terminal_font',
        detail: `"${input.terminal_font}" is not a supported terminal font`,
      });
    if (input.theme_mode !== undefined && !THEME_MODES.includes(input.theme_mode))
      fields.push({ field: 'theme_mode', detail: `"${input.theme_mode}" is not a valid theme mode` });
    if (input.theme_light && !LIGHT_THEMES.includes(input.theme_light))
      fields.push({ field: 'theme_light', detail: `"${input.theme_light}" is not a light theme` });
    if (input.theme_dark && !DARK_THEMES.includes(input.theme_dark))
      fields.push({ field: 'theme_dark', detail: `"${input.theme_dark}" is not a dark theme` });
    const current = await this.appearance(userId);
    const next: Appearance = {
      ...current,
      theme_preference: input.theme_preference,
      terminal_font: input.terminal_font,
    };
    if (input.theme_mode) {
      next.theme_mode = input.theme_mode;
      next.theme_light = input.theme_light || current.theme_light;
      next.theme_dark = input.theme_dark || current.theme_dark;
      if (input.theme_mode === 'sync' && (!next.theme_light || !next.theme_dark))
        fields.push({ field: 'theme_mode', detail: 'sync mode needs theme_light and theme_dark' });
    }
    if (fields.length) throw new InvalidError('Invalid appearance settings.', { fields });
    return this.write(userId, 'appearance', next);
  }

  preferences(userId: string): Promise<Preferences> {
    return this.json(userId, 'preferences', DEFAULT_PREFERENCES);
  }

  async setPreferences(userId: string, input: Partial<Preferences>): Promise<Preferences> {
    const current = await this.preferences(userId);
    const next = { ...current };
    for (const [key, value] of Object.entries(input))
      if (value !== undefined) (next as Record<string, unknown>)[key] = value;
    return this.write(userId, 'preferences', next);
  }

  async quietHours(userId: string, now = new Date()) {
    const stored = (await this.rows.find(userId, 'quiet_hours'))?.value;
    const schedule = parseQuietHours(stored ?? DEFAULT_QUIET_HOURS);
    const valid = 'error' in schedule ? parseQuietHours(DEFAULT_QUIET_HOURS) : schedule;
    if ('error' in valid) throw new Error('default quiet hours schedule is invalid');
    return {
      raw_schedule: valid.raw,
      user_set: stored !== undefined && !('error' in schedule),
      user_can_set: true,
      time: `${String(valid.hour).padStart(2, '0')}:${String(valid.minute).padStart(2, '0')}`,
      timezone: valid.timezone,
      next: nextQuietHoursStart(valid, now).toISOString(),
    };
  }

  /** An empty schedule goes back to the default (Coder's rule). */
  async setQuietHours(userId: string, raw: string) {
    if (raw.trim() === '') {
      await this.rows.upsert(userId, 'quiet_hours', DEFAULT_QUIET_HOURS);
    } else {
      const schedule = parseQuietHours(raw);
      if ('error' in schedule)
        throw new InvalidError('Invalid quiet hours schedule.', {
          fields: [{ field: 'schedule', detail: schedule.error }],
        });
      await this.rows.upsert(userId, 'quiet_hours', schedule.raw);
    }
    return this.quietHours(userId);
  }

  private sealKey(userId: string): string {
    const pair = generateEd25519KeyPair();
    return JSON.stringify({
      public_key: pair.publicKey,
      private_key: this.box.seal(pair.privateKeyPem, `gitsshkey:${userId}`),
      created_at: new Date().toISOString(),
    });
  }

  private presentKey(userId: string, row: { value: string; updatedAt: Date }) {
    const value = JSON.parse(row.value) as { public_key: string; created_at: string };
    return {
      user_id: userId,
      created_at: value.created_at,
      updated_at: row.updatedAt.toISOString(),
      public_key: value.public_key,
    };
  }

  /** The user's Git SSH key, generated once at the first read. */
  async gitSshKey(userId: string) {
    const row =
      (await this.rows.find(userId, 'gitsshkey')) ??
      (await this.rows.insertIfAbsent(userId, 'gitsshkey', this.sealKey(userId)));
    return this.presentKey(userId, row);
  }

  /** A new key pair replaces the old one (Coder's regenerate); `created_at` stays the first key's. */
  async regenerateGitSshKey(userId: string) {
    const first = await this.gitSshKey(userId);
    const next = JSON.parse(this.sealKey(userId)) as Record<string, string>;
    next.created_at = first.created_at;
    return this.presentKey(userId, await this.rows.upsert(userId, 'gitsshkey', JSON.stringify(next)));
  }

  /** The private key of the user's Git SSH key (PEM), for the workspace agent. */
  async gitSshPrivateKey(userId: string): Promise<string> {
    await this.gitSshKey(userId);
    const row = (await this.rows.find(userId, 'gitsshkey'))!;
    return this.box.openText(
      (JSON.parse(row.value) as { private_key: string }).private_key,
      `gitsshkey:${userId}`,
    );
  }
}
