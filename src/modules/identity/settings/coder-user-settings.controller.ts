import { Body, Get, HttpCode, Param, Put } from '@nestjs/common';
import {
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiProperty,
  ApiPropertyOptional,
  ApiResponse,
} from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { Authenticated, CurrentPrincipal } from '../../../api/access/access.decorators';
import { AccessPolicy, userObject } from '../../../api/access/access-policy';
import type { Principal } from '../../../api/access/principal';
import { CoderController } from '../../../api/coder/coder-controller.decorator';
import { GoStruct, GoType, GoValidate } from '../../../api/coder/coder-dto.decorators';
import { CoderResponseDto } from '../../../api/coder/coder-response.dto';
import type { User } from '../entities/user.entity';
import { UserDirectory } from '../user-directory.service';
import { UserSettingsService } from './user-settings.service';

const ERROR = { type: CoderResponseDto };
const USER_PARAM = { name: 'user', description: 'user id (uuid), username, or `me`' };
const SHORTCUTS = ['enter', 'modifier_enter'];
const DISPLAY_MODES = ['auto', 'always_expanded', 'always_collapsed'];
const THINKING_MODES = ['auto', 'preview', 'always_expanded', 'always_collapsed'];

/** codersdk.UserAppearanceSettings */
export class UserAppearanceSettingsDto {
  @ApiProperty() theme_preference: string;
  @ApiProperty() terminal_font: string;
  @ApiProperty({ enum: ['', 'sync', 'single'] }) theme_mode: string;
  @ApiProperty() theme_light: string;
  @ApiProperty() theme_dark: string;
}

@GoStruct('UpdateUserAppearanceSettingsRequest')
export class UpdateUserAppearanceSettingsDto {
  @ApiProperty() @GoType('string') @GoValidate('required') theme_preference: string;
  @ApiProperty() @GoType('string') terminal_font: string;
  @ApiPropertyOptional({ enum: ['', 'sync', 'single'] }) @GoType('string') @IsOptional() theme_mode?: string;
  @ApiPropertyOptional() @GoType('string') @IsOptional() theme_light?: string;
  @ApiPropertyOptional() @GoType('string') @IsOptional() theme_dark?: string;
}

/** codersdk.UserPreferenceSettings */
export class UserPreferenceSettingsDto {
  @ApiProperty({ enum: SHORTCUTS }) agent_chat_send_shortcut: string;
  @ApiProperty({ enum: DISPLAY_MODES }) code_diff_display_mode: string;
  @ApiProperty({ enum: DISPLAY_MODES }) shell_tool_display_mode: string;
  @ApiProperty() task_notification_alert_dismissed: boolean;
  @ApiProperty({ enum: THINKING_MODES }) thinking_display_mode: string;
}

@GoStruct('UpdateUserPreferenceSettingsRequest')
export class UpdateUserPreferenceSettingsDto {
  @ApiPropertyOptional({ enum: SHORTCUTS })
  @GoType('string')
  @IsOptional()
  @IsIn(SHORTCUTS)
  agent_chat_send_shortcut?: string;
  @ApiPropertyOptional({ enum: DISPLAY_MODES })
  @GoType('string')
  @IsOptional()
  @IsIn(DISPLAY_MODES)
  code_diff_display_mode?: string;
  @ApiPropertyOptional({ enum: DISPLAY_MODES })
  @GoType('string')
  @IsOptional()
  @IsIn(DISPLAY_MODES)
  shell_tool_display_mode?: string;
  @ApiPropertyOptional() @GoType('bool') @IsOptional() task_notification_alert_dismissed?: boolean;
  @ApiPropertyOptional({ enum: THINKING_MODES })
  @GoType('string')
  @IsOptional()
  @IsIn(THINKING_MODES)
  thinking_display_mode?: string;
}

/** codersdk.UserQuietHoursScheduleResponse */
export class UserQuietHoursScheduleDto {
  @ApiProperty() raw_schedule: string;
  @ApiProperty() user_set: boolean;
  @ApiProperty() user_can_set: boolean;
  @ApiProperty() time: string;
  @ApiProperty() timezone: string;
  @ApiProperty({ format: 'date-time' }) next: string;
}

@GoStruct('UpdateUserQuietHoursScheduleRequest')
export class UpdateUserQuietHoursScheduleDto {
  @ApiProperty() @GoType('string') schedule: string;
}

/** codersdk.GitSSHKey */
export class GitSshKeyDto {
  @ApiProperty({ format: 'uuid' }) user_id: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
  @ApiProperty() public_key: string;
}

/** codersdk.UserLoginType */
export class UserLoginTypeDto {
  @ApiProperty({ enum: ['', 'password', 'github', 'oidc', 'token', 'none'] }) login_type: string;
}

/**
 * A user's own settings under `/api/v2/users/{user}/…` (issue 48 item 8): appearance, preferences,
 * quiet hours, login type and the Git SSH key. Reads need `read_personal` on the user, writes
 * `update_personal` (the user themself, owners); another user is 404 as Coder's user reads.
 */
@CoderController('users')
export class CoderUserSettingsController {
  constructor(
    private readonly directory: UserDirectory,
    private readonly authz: AccessPolicy,
    private readonly settings: UserSettingsService,
  ) {}

  private async target(
    principal: Principal,
    ref: string,
    action: 'read_personal' | 'update_personal',
  ): Promise<User> {
    const user = await this.directory.requireCoderUser(ref, principal);
    await this.authz.require(principal, action, userObject(user), { notFound: true });
    return user;
  }

  @Get(':user/appearance')
  @Authenticated({ tokenScope: { type: 'user', action: 'read_personal' } })
  @ApiOperation({ summary: "A user's appearance settings (theme, terminal font)" })
  @ApiParam(USER_PARAM)
  @ApiOkResponse({ type: UserAppearanceSettingsDto })
  @ApiResponse({ status: 404, ...ERROR })
  async appearance(@CurrentPrincipal() principal: Principal, @Param('user') ref: string) {
    return this.settings.appearance((await this.target(principal, ref, 'read_personal')).uuid);
  }

  @Put(':user/appearance')
  @HttpCode(200)
  @Authenticated({ tokenScope: { type: 'user', action: 'update_personal' } })
  @ApiOperation({ summary: "Update a user's appearance settings" })
  @ApiParam(USER_PARAM)
  @ApiOkResponse({ type: UserAppearanceSettingsDto })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  async setAppearance(
    @CurrentPrincipal() principal: Principal,
    @Param('user') ref: string,
    @Body() body: UpdateUserAppearanceSettingsDto,
  ) {
    const user = await this.target(principal, ref, 'update_personal');
    return this.settings.setAppearance(user.uuid, { ...body, terminal_font: body.terminal_font ?? '' });
  }

  @Get(':user/preferences')
  @Authenticated({ tokenScope: { type: 'user', action: 'read_personal' } })
  @ApiOperation({ summary: "A user's preference settings (agent chat display modes)" })
  @ApiParam(USER_PARAM)
  @ApiOkResponse({ type: UserPreferenceSettingsDto })
  @ApiResponse({ status: 404, ...ERROR })
  async preferences(@CurrentPrincipal() principal: Principal, @Param('user') ref: string) {
    return this.settings.preferences((await this.target(principal, ref, 'read_personal')).uuid);
  }

  @Put(':user/preferences')
  @HttpCode(200)
  @Authenticated({ tokenScope: { type: 'user', action: 'update_personal' } })
  @ApiOperation({ summary: "Update a user's preference settings (fields left out keep their value)" })
  @ApiParam(USER_PARAM)
  @ApiOkResponse({ type: UserPreferenceSettingsDto })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  async setPreferences(
    @CurrentPrincipal() principal: Principal,
    @Param('user') ref: string,
    @Body() body: UpdateUserPreferenceSettingsDto,
  ) {
    return this.settings.setPreferences((await this.target(principal, ref, 'update_personal')).uuid, body);
  }

  @Get(':user/quiet-hours')
  @Authenticated({ tokenScope: { type: 'user', action: 'read_personal' } })
  @ApiOperation({ summary: "A user's quiet hours schedule (default CRON_TZ=UTC 0 0 * * *)" })
  @ApiParam(USER_PARAM)
  @ApiOkResponse({ type: UserQuietHoursScheduleDto })
  @ApiResponse({ status: 404, ...ERROR })
  async quietHours(@CurrentPrincipal() principal: Principal, @Param('user') ref: string) {
    return this.settings.quietHours((await this.target(principal, ref, 'read_personal')).uuid);
  }

  @Put(':user/quiet-hours')
  @HttpCode(200)
  @Authenticated({ tokenScope: { type: 'user', action: 'update_personal' } })
  @ApiOperation({
    summary: "Set a user's quiet hours schedule (daily cron with CRON_TZ; empty: the default)",
  })
  @ApiParam(USER_PARAM)
  @ApiOkResponse({ type: UserQuietHoursScheduleDto })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  async setQuietHours(
    @CurrentPrincipal() principal: Principal,
    @Param('user') ref: string,
    @Body() body: UpdateUserQuietHoursScheduleDto,
  ) {
    return this.settings.setQuietHours(
      (await this.target(principal, ref, 'update_personal')).uuid,
      body.schedule ?? '',
    );
  }

  @Get(':user/login-type')
  @Authenticated({ tokenScope: { type: 'user', action: 'read_personal' } })
  @ApiOperation({ summary: 'How a user signs in (password, oidc, none for service accounts)' })
  @ApiParam(USER_PARAM)
  @ApiOkResponse({ type: UserLoginTypeDto })
  @ApiResponse({ status: 404, ...ERROR })
  async loginType(
    @CurrentPrincipal() principal: Principal,
    @Param('user') ref: string,
  ): Promise<UserLoginTypeDto> {
    return { login_type: (await this.target(principal, ref, 'read_personal')).loginType };
  }

  @Get(':user/gitsshkey')
  @Authenticated({ tokenScope: { type: 'user', action: 'read_personal' } })
  @ApiOperation({ summary: "A user's Git SSH public key (an ed25519 pair generated at the first read)" })
  @ApiParam(USER_PARAM)
  @ApiOkResponse({ type: GitSshKeyDto })
  @ApiResponse({ status: 404, ...ERROR })
  async gitSshKey(@CurrentPrincipal() principal: Principal, @Param('user') ref: string) {
    return this.settings.gitSshKey((await this.target(principal, ref, 'read_personal')).uuid);
  }

  @Put(':user/gitsshkey')
  @HttpCode(200)
  @Authenticated({ tokenScope: { type: 'user', action: 'update_personal' } })
  @ApiOperation({ summary: "Regenerate a user's Git SSH key pair" })
  @ApiParam(USER_PARAM)
  @ApiOkResponse({ type: GitSshKeyDto })
  @ApiResponse({ status: 404, ...ERROR })
  async regenerateGitSshKey(@CurrentPrincipal() principal: Principal, @Param('user') ref: string) {
    return this.settings.regenerateGitSshKey((await this.target(principal, ref, 'update_personal')).uuid);
  }
}
