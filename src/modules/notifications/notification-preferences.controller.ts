import { Body, Get, Param, Put } from '@nestjs/common';
import { ApiBody, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiResponse } from '@nestjs/swagger';
import { CoderController } from '../../api/coder/coder-controller.decorator';
import { CODER_NOT_FOUND } from '../../api/coder/coder-error.renderer';
import { CoderResponseDto } from '../../api/coder/coder-response.dto';
import { BadRequestError, NotFoundError } from '../../platform/errors/domain-error';
import { Authenticated, CurrentPrincipal } from '../../api/access/access.decorators';
import type { Principal } from '../../api/access/principal';
import type { User } from '../identity/entities/user.entity';
import { UserDirectory } from '../identity/user-directory.service';
import { isOwner } from './access';
import { NotificationPreferenceDto, UpdateUserNotificationPreferencesDto } from './dto/notifications.dto';
import { parseUuid } from './inbox/uuid';
import { NotificationPreferencesService } from './notification-preferences.service';
import { or500 } from './notifications.controller';

/** Coder dialect: /api/v2/users/{user}/notifications/preferences (self, or owners for anyone). */
// Listed above the dialect decorator so it is consulted before the dialect's catch-all filter.
@CoderController('users')
export class NotificationPreferencesController {
  constructor(
    private readonly directory: UserDirectory,
    private readonly preferences: NotificationPreferencesService,
  ) {}

  private async target(ref: string, principal: Principal): Promise<User> {
    const user = await this.directory.requireCoderUser(ref, principal);
    if (user.id !== principal.user.id && !isOwner(principal.user)) {
      throw new NotFoundError(CODER_NOT_FOUND, { code: 'USER_NOT_FOUND' });
    }
    return user;
  }

  @Get(':user/notifications/preferences')
  @Authenticated({ tokenScope: { type: 'notification_preference', action: 'read' } })
  @ApiOperation({ summary: "A user's notification preferences (explicitly stored entries)" })
  @ApiOkResponse({ type: [NotificationPreferenceDto] })
  @ApiNotFoundResponse({ type: CoderResponseDto })
  async get(
    @CurrentPrincipal() principal: Principal,
    @Param('user') ref: string,
  ): Promise<NotificationPreferenceDto[]> {
    const user = await this.target(ref, principal);
    return or500('Failed to retrieve user notification preferences.', () => this.preferences.list(user.id));
  }

  @Put(':user/notifications/preferences')
  @Authenticated({ tokenScope: { type: 'notification_preference', action: 'update' } })
  @ApiOperation({ summary: "Update a user's notification preferences (template_disabled_map)" })
  @ApiBody({ type: UpdateUserNotificationPreferencesDto })
  @ApiOkResponse({ type: [NotificationPreferenceDto] })
  @ApiResponse({ status: 400, type: CoderResponseDto })
  @ApiNotFoundResponse({ type: CoderResponseDto })
  async put(
    @CurrentPrincipal() principal: Principal,
    @Param('user') ref: string,
    @Body() body: UpdateUserNotificationPreferencesDto,
  ): Promise<NotificationPreferenceDto[]> {
    const user = await this.target(ref, principal);
    const entries = new Map<string, boolean>();
    for (const [key, value] of Object.entries(body.template_disabled_map ?? {})) {
      const parsed = parseUuid(key);
      if ('error' in parsed) {
        throw new BadRequestError('Unable to parse notification template UUID.', {
          code: 'INVALID_UUID',
          detail: parsed.error,
        });
      }
      entries.set(parsed.uuid, value);
    }
    return or500('Failed to update user notifications preferences.', () =>
      this.preferences.update(user.id, entries),
    );
  }
}
