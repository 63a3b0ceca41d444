import nodemailer from 'nodemailer';
import type { AppConfig } from '../../../platform/config/app-config';
import { redactUrlIn } from '../../../platform/net/safe-url';
import type { NotificationsConfig } from '../notifications.config';
import { markdownToHtml } from '../rendering/markdown';
import type { MessagePayload } from './payload';

/** A delivery failure: `retryable` decides between temporary and permanent failure. */
export class SendError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

export interface RenderedMessage {
  id: string;
  payload: MessagePayload;
  titleMarkdown: string;
  bodyMarkdown: string;
  title: string;
  body: string;
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new SendError(`${what} timed out after ${ms}ms`, true)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** SMTP through nodemailer (SMTP_URL: smtp:// or smtps://, credentials in the URL). */
export class SmtpSender {
  private readonly transport: nodemailer.Transporter | undefined;

  constructor(
    private readonly config: AppConfig,
    private readonly settings: NotificationsConfig,
  ) {
    const url = config.smtp.url;
    if (url) {
      const timeout = settings.dispatchTimeoutMs;
      this.transport = nodemailer.createTransport({
        url,
        connectionTimeout: timeout,
        greetingTimeout: timeout,
        socketTimeout: timeout,
      } as nodemailer.TransportOptions);
    }
  }

  async send(message: RenderedMessage): Promise<void> {
    if (!this.transport) throw new SendError('smtp transport not configured (SMTP_URL)', false);
    const to = message.payload.user_email;
    if (!to) throw new SendError('recipient has no email address', false);
    const actions = message.payload.actions;
    const text = [
      message.body,
      ...(actions.length > 0 ? [actions.map((a) => `${a.label}: ${a.url}`).join('\n')] : []),
    ].join('\n\n');
    const html =
      markdownToHtml(message.bodyMarkdown) +
      actions.map((a) => `<p><a href="${escapeHtml(a.url)}">${escapeHtml(a.label)}</a></p>`).join('');
    const host = new URL(this.config.publicUrl).hostname || 'localhost';
    try {
      await withTimeout(
        this.transport.sendMail({
          from: this.config.smtp.from,
          to,
          subject: message.title,
          text,
          html,
          messageId: `<${message.id}@${host}>`,
          headers: { 'X-Message-Id': message.id },
        }),
        this.settings.dispatchTimeoutMs,
        'smtp send',
      );
    } catch (error) {
      if (error instanceof SendError) throw error;
      const responseCode = (error as { responseCode?: number }).responseCode;
      const text = error instanceof Error ? error.message : String(error);
      // 5xx replies are final; 4xx replies and connection problems are worth retrying.
      throw new SendError(text, !(typeof responseCode === 'number' && responseCode >= 500));
    }
  }

  close(): void {
    this.transport?.close();
  }
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** POST of the JSON payload (Coder's WebhookPayload v1.1) to NOTIFICATIONS_WEBHOOK_URL. */
export class WebhookSender {
  constructor(
    private readonly config: AppConfig,
    private readonly settings: NotificationsConfig,
  ) {}

  async send(message: RenderedMessage): Promise<void> {
    const url = this.config.notifications.webhookUrl;
    if (!url) throw new SendError('webhook endpoint not defined', false);
    const body = JSON.stringify({
      _version: '1.1',
      msg_id: message.id,
      payload: message.payload,
      title: message.title,
      title_markdown: message.titleMarkdown,
      body: message.body,
      body_markdown: message.bodyMarkdown,
    });
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Message-Id': message.id },
        body,
        signal: AbortSignal.timeout(this.settings.dispatchTimeoutMs),
      });
    } catch (error) {
      // fetch's messages may quote the URL (e.g. one with credentials): the reason is logged and stored, so origin + path only.
      const text = redactUrlIn(error instanceof Error ? error.message : String(error), url);
      throw new SendError(`webhook request failed: ${text}`, true);
    }
    const text = await response.text().catch(() => '');
    if (response.status < 200 || response.status >= 300) {
      throw new SendError(`webhook responded ${response.status}: ${text.slice(0, 200)}`, true);
    }
  }
}
