import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsOptional, ValidateNested } from 'class-validator';
import { GoStruct, GoType } from '../../../api/coder/coder-dto.decorators';

// Request DTOs carry Coder's Go naming (src/api/coder): a wrong JSON type is Go's decoder text; an absent body is `EOF`.

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

@GoStruct('UpdateInboxNotificationReadStatusRequest', { absentBody: 'eof' })
export class UpdateInboxNotificationReadStatusDto {
  @ApiPropertyOptional() @GoType('bool') is_read?: boolean;
}

/** Request and response of the settings routes. */
@GoStruct('NotificationsSettings', { absentBody: 'eof' })
export class NotificationsSettingsDto {
  @ApiProperty() @GoType('bool') notifier_paused: boolean;
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

@GoStruct('UpdateUserNotificationPreferences', { absentBody: 'eof' })
export class UpdateUserNotificationPreferencesDto {
  @ApiProperty({ type: 'object', additionalProperties: { type: 'boolean' } })
  @GoType('map[string]bool')
  template_disabled_map?: Record<string, boolean>;
}

export class NotificationMethodsResponseDto {
  @ApiProperty({ type: [String] }) available: string[];
  @ApiProperty() default: string;
}

@GoStruct('CustomNotificationContent')
export class CustomNotificationContentDto {
  @ApiProperty({ maxLength: 120, description: 'bytes' }) @GoType('string') title?: string;
  @ApiProperty({ maxLength: 2000, description: 'bytes' }) @GoType('string') message?: string;
}

@GoStruct('CustomNotificationRequest', { absentBody: 'eof' })
export class CustomNotificationRequestDto {
  @ApiProperty({ type: CustomNotificationContentDto })
  @GoType('codersdk.CustomNotificationContent')
  @IsOptional() // null decodes to the zero value (Go); nested validation only for values
  @ValidateNested()
  @Type(() => CustomNotificationContentDto)
  content?: CustomNotificationContentDto | null;
}
