import { Body, Get, HttpCode, Param, Post, Put, Query, Res } from '@nestjs/common';
import {
  ApiBody,
  ApiForbiddenResponse,
  ApiInternalServerErrorResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { CoderController } from '../../api/coder/coder-controller.decorator';
import { CoderResponseDto } from '../../api/coder/coder-response.dto';
import { BadRequestError, DomainError, ForbiddenError } from '../../platform/errors/domain-error';
import { Authenticated, CurrentPrincipal } from '../../api/access/access.decorators';
import type { Principal } from '../../api/access/principal';
import { isOwner, isSystemUser } from './access';
import { NotificationEnqueuer } from './delivery/notification-enqueuer.service';
import {
  CustomNotificationRequestDto,
  GetInboxNotificationResponseDto,
  ListInboxNotificationsResponseDto,
  NotificationMethodsResponseDto,
  NotificationsSettingsDto,
  NotificationTemplateDto,
  ReadStatusResponseDto,
  UpdateInboxNotificationReadStatusDto,
} from './dto/notifications.dto';
import { ListInboxQueryDto, WatchInboxQueryDto } from './dto/inbox-query.dto';
import type { NotificationTemplate, TemplateKind } from './entities/notification-template.entity';
import type { InboxFilters } from './inbox/inbox-query';
import { InboxService } from './inbox/inbox.service';
import { parseUuid } from './inbox/uuid';
import { NotificationSettingsService } from './notification-settings.service';
import { NotificationTemplatesService } from './notification-templates.service';
import { OperationFailedError } from '../../platform/errors/operation-failed.error';
import { NOTIFICATION_TEMPLATE_IDS } from './template-ids';

/** Runs `work`; an unexpected (non-domain) error becomes the route's own 500. */
export async function or500<T>(message: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof DomainError) throw error;
    throw new OperationFailedError(message, { cause: error });
  }
}

function presentTemplate(template: NotificationTemplate): NotificationTemplateDto {
  return {
    id: template.id,
    name: template.name,
    title_template: template.titleTemplate,
    body_template: template.bodyTemplate,
    actions: JSON.stringify(template.actions.map((a) => ({ label: a.label, url: a.url }))),
    group: template.group ?? '',
    method: template.method ?? '',
    kind: template.kind,
    enabled_by_default: template.enabledByDefault,
  };
}

const ERROR = { type: CoderResponseDto };

/** Coder dialect: /api/v2/notifications (spec 2, table B). */
// Listed above the dialect decorator so it is consulted before the dialect's catch-all filter.
@CoderController('notifications')
export class NotificationsController {
  constructor(
    private readonly templates: NotificationTemplatesService,
    private readonly settings: NotificationSettingsService,
    private readonly enqueuer: NotificationEnqueuer,
    private readonly inbox: InboxService,
  ) {}

  @Get('dispatch-methods')
  @Authenticated({ tokenScope: { type: 'deployment_config', action: 'read' } })
  @ApiOperation({ summary: 'Delivery methods: available and the deployment default' })
  @ApiOkResponse({ type: [NotificationMethodsResponseDto] })
  @ApiResponse({ status: 401, ...ERROR })
  dispatchMethods(): NotificationMethodsResponseDto[] {
    return [{ available: ['smtp', 'webhook'], default: this.enqueuer.configuredDefault() }];
  }

  @Get('templates/system')
  @Authenticated({ tokenScope: { type: 'notification_template', action: 'read' } })
  @ApiOperation({ summary: 'System notification templates' })
  @ApiOkResponse({ type: [NotificationTemplateDto] })
  @ApiInternalServerErrorResponse(ERROR)
  systemTemplates(): Promise<NotificationTemplateDto[]> {
    return this.templatesOf('system', 'Failed to retrieve system notifications templates.');
  }

  @Get('templates/custom')
  @Authenticated({ tokenScope: { type: 'notification_template', action: 'read' } })
  @ApiOperation({ summary: 'Custom notification templates' })
  @ApiOkResponse({ type: [NotificationTemplateDto] })
  @ApiInternalServerErrorResponse(ERROR)
  customTemplates(): Promise<NotificationTemplateDto[]> {
    return this.templatesOf('custom', 'Failed to retrieve custom notifications templates.');
  }

  private templatesOf(kind: TemplateKind, failure: string): Promise<NotificationTemplateDto[]> {
    return or500(failure, async () => (await this.templates.listByKind(kind)).map(presentTemplate));
  }

  @Get('settings')
  @Authenticated({ tokenScope: { type: 'deployment_config', action: 'read' } })
  @ApiOperation({ summary: 'Deployment notification settings' })
  @ApiOkResponse({ type: NotificationsSettingsDto })
  async getSettings(): Promise<NotificationsSettingsDto> {
    const raw = await or500('Failed to fetch notifications settings.', () => this.settings.raw());
    if (raw === undefined) return { notifier_paused: false };
    return or500('Failed to unmarshal notifications settings.', () => {
      const parsed = JSON.parse(raw) as { notifier_paused?: unknown };
      return Promise.resolve({ notifier_paused: parsed.notifier_paused === true });
    });
  }

  @Put('settings')
  @Authenticated({ tokenScope: { type: 'deployment_config', action: 'update' } })
  @ApiOperation({ summary: 'Pause or resume notification dispatch (owners); 304 when nothing changes' })
  @ApiBody({ type: NotificationsSettingsDto })
  @ApiOkResponse({ type: NotificationsSettingsDto })
  @ApiResponse({ status: 304, description: 'Not modified' })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiForbiddenResponse(ERROR)
  async putSettings(
    @CurrentPrincipal() principal: Principal,
    @Body() body: NotificationsSettingsDto,
    @Res() res: Response,
  ): Promise<void> {
    const value = body.notifier_paused ?? false;
    const canonical = NotificationSettingsService.canonical(value);
    const stored = await or500('Failed to fetch notifications settings.', () => this.settings.raw());
    if (stored === canonical) {
      res.status(304).end();
      return;
    }
    if (!isOwner(principal.user)) throw new ForbiddenError(undefined, 'owner_required');
    await or500('Failed to update notifications settings.', () => this.settings.store(value));
    if (!value) this.enqueuer.wake();
    res.status(200).json({ notifier_paused: value });
  }

  @Post('test')
  @HttpCode(200)
  @Authenticated({ tokenScope: { type: 'deployment_config', action: 'update' } })
  @ApiOperation({ summary: 'Send a test notification to the caller (owners)' })
  @ApiOkResponse({ description: 'Enqueued (empty body)' })
  @ApiForbiddenResponse(ERROR)
  @ApiInternalServerErrorResponse(ERROR)
  async test(@CurrentPrincipal() principal: Principal): Promise<void> {
    if (!isOwner(principal.user)) throw new ForbiddenError(undefined, 'owner_required');
    await or500('Failed to send test notification', () =>
      this.enqueuer.enqueue({
        templateId: NOTIFICATION_TEMPLATE_IDS.testNotification,
        userId: principal.user.id,
        labels: {},
        data: { timestamp: new Date().toISOString() },
        createdBy: 'send-test-notification',
      }),
    );
  }

  @Post('custom')
  @HttpCode(204)
  @Authenticated({ tokenScope: { type: 'notification_message', action: 'create' } })
  @ApiOperation({ summary: 'Send a custom notification to oneself' })
  @ApiBody({ type: CustomNotificationRequestDto })
  @ApiNoContentResponse({ description: 'Enqueued' })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiForbiddenResponse(ERROR)
  @ApiInternalServerErrorResponse(ERROR)
  async custom(
    @CurrentPrincipal() principal: Principal,
    @Body() body: CustomNotificationRequestDto,
  ): Promise<void> {
    if (isSystemUser(principal.user)) {
      throw new ForbiddenError('Forbidden', 'permission', {
        detail: 'System users cannot send custom notifications.',
      });
    }
    const content = body.content;
    const title = content?.title ?? '';
    const message = content?.message ?? '';
    const invalid = (detail: string) =>
      new BadRequestError('Invalid request body', { code: 'INVALID_CUSTOM_NOTIFICATION', detail });
    if (content === undefined || content === null) throw invalid('content is required');
    if (title.trim() === '' && message.trim() === '') {
      throw invalid("provide a non-empty 'content.title' or 'content.message'");
    }
    if (Buffer.byteLength(title) > 120) throw invalid("'content.title' must be less than 120 characters");
    if (Buffer.byteLength(message) > 2000)
      throw invalid("'content.message' must be less than 2000 characters");
    const minute = new Date();
    minute.setUTCSeconds(0, 0);
    await or500('Failed to send custom notification', () =>
      this.enqueuer.enqueue({
        templateId: NOTIFICATION_TEMPLATE_IDS.customNotification,
        userId: principal.user.id,
        recipient: principal.user,
        labels: { custom_title: title, custom_message: message },
        data: { dedupe_bypass_ts: minute.toISOString() },
        createdBy: principal.user.uuid,
      }),
    );
  }

  @Get('inbox')
  @Authenticated({ tokenScope: { type: 'inbox_notification', action: 'read' } })
  @ApiOperation({ summary: "The caller's inbox: 25 newest first, filters, keyset paging" })
  @ApiOkResponse({ type: ListInboxNotificationsResponseDto })
  @ApiResponse({ status: 400, ...ERROR })
  async listInbox(
    @CurrentPrincipal() principal: Principal,
    @Query() query: ListInboxQueryDto,
  ): Promise<ListInboxNotificationsResponseDto> {
    const filters: InboxFilters = {
      targets: query.targets ?? [],
      templates: query.templates ?? [],
      readStatus: query.read_status ?? 'all',
      startingBefore: query.starting_before,
    };
    const { notifications, unreadCount } = await or500('Failed to get filtered inbox notifications.', () =>
      this.inbox.list(principal.user, filters),
    );
    return { notifications, unread_count: unreadCount };
  }

  @Get('inbox/watch')
  @Authenticated({ tokenScope: { type: 'inbox_notification', action: 'read' } })
  @ApiOperation({
    summary: 'WebSocket: one JSON frame {notification, unread_count} per new inbox item',
    description:
      'Upgrade to WebSocket (credentials as header, cookie or query). Query: targets, templates, read_status, format (markdown|plaintext). A plain GET answers 426.',
  })
  @ApiResponse({ status: 101, description: 'Switching protocols' })
  @ApiOkResponse({
    type: GetInboxNotificationResponseDto,
    description: 'The JSON of each WebSocket text frame',
  })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 426, ...ERROR })
  // The query DTO is validated before the 426 (same answers as the gateway's check before an upgrade).
  watchWithoutUpgrade(@Query() _query: WatchInboxQueryDto, @Res() res: Response): void {
    res.status(426).json({
      message: 'Failed to upgrade connection to websocket.',
      detail: 'Expected a WebSocket upgrade request.',
    });
  }

  @Put('inbox/mark-all-as-read')
  @HttpCode(204)
  @Authenticated({ tokenScope: { type: 'inbox_notification', action: 'update' } })
  @ApiOperation({ summary: "Mark all of the caller's inbox items as read" })
  @ApiNoContentResponse({ description: 'Done' })
  async markAllRead(@CurrentPrincipal() principal: Principal): Promise<void> {
    await or500('Failed to mark all unread notifications as read.', () =>
      this.inbox.markAllRead(principal.user.id),
    );
  }

  @Put('inbox/:id/read-status')
  @Authenticated({ tokenScope: { type: 'inbox_notification', action: 'update' } })
  @ApiOperation({ summary: 'Mark one inbox item read or unread' })
  @ApiBody({ type: UpdateInboxNotificationReadStatusDto })
  @ApiOkResponse({ type: ReadStatusResponseDto })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiNotFoundResponse(ERROR)
  async readStatus(
    @CurrentPrincipal() principal: Principal,
    @Param('id') rawId: string,
    @Body() body: UpdateInboxNotificationReadStatusDto,
  ): Promise<ReadStatusResponseDto> {
    const parsed = parseUuid(rawId);
    if ('error' in parsed)
      throw new BadRequestError(`Invalid UUID "${rawId}".`, { code: 'INVALID_UUID', detail: parsed.error });
    const isRead = body.is_read ?? false;
    const notification = await or500('Failed to update inbox notification read status.', () =>
      this.inbox.setReadStatus(principal.user.id, parsed.uuid, isRead),
    );
    const unread = await or500('Failed to count unread inbox notifications.', () =>
      this.inbox.unreadCount(principal.user.id),
    );
    return { message: 'Notification read status updated.', notification, unread_count: unread };
  }
}
