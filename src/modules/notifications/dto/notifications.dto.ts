import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class NotificationActionDto {
  @ApiProperty() label: string;
  @ApiProperty() url: string;
}

export class InboxNotificationDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) user_id: string;
  @ApiProperty({ format: 'uuid' }) template_id: string;
  @ApiProperty({ type: [String], format: 'uuid' }) targets: string[];
  @ApiProperty() title: string;
  @ApiProperty() content: string;
  @ApiProperty() icon: string;
  @ApiProperty({ type: [NotificationActionDto] }) actions: NotificationActionDto[];
  @ApiProperty({ type: String, nullable: true }) read_at: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export class ListInboxNotificationsResponseDto {
  @ApiProperty({ type: [InboxNotificationDto] }) notifications: InboxNotificationDto[];
  @ApiProperty() unread_count: number;
}

export class GetInboxNotificationResponseDto {
  @ApiProperty({ type: InboxNotificationDto }) notification: InboxNotificationDto;
  @ApiProperty() unread_count: number;
}

export class ReadStatusResponseDto extends GetInboxNotificationResponseDto {
  @ApiProperty({ example: 'Notification read status updated.' }) message: string;
}

export class UpdateInboxNotificationReadStatusDto {
  @ApiPropertyOptional() is_read?: boolean;
}

export class NotificationsSettingsDto {
  @ApiProperty() notifier_paused: boolean;
}

export class NotificationTemplateDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() name: string;
  @ApiProperty() title_template: string;
  @ApiProperty() body_template: string;
  @ApiProperty({ description: 'JSON text of the unrendered actions' }) actions: string;
  @ApiProperty() group: string;
  @ApiProperty({ description: '"" = the deployment default method' }) method: string;
  @ApiProperty({ enum: ['system', 'custom'] }) kind: string;
  @ApiProperty() enabled_by_default: boolean;
}

export class NotificationPreferenceDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() disabled: boolean;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

export class UpdateUserNotificationPreferencesDto {
  @ApiProperty({ type: 'object', additionalProperties: { type: 'boolean' } })
  template_disabled_map: Record<string, boolean>;
}

export class NotificationMethodsResponseDto {
  @ApiProperty({ type: [String] }) available: string[];
  @ApiProperty() default: string;
}

export class CustomNotificationContentDto {
  @ApiProperty({ maxLength: 120 }) title: string;
  @ApiProperty({ maxLength: 2000 }) message: string;
}

export class CustomNotificationRequestDto {
  @ApiProperty({ type: CustomNotificationContentDto }) content: CustomNotificationContentDto;
}
