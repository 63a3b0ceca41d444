import { ApiProperty } from '@nestjs/swagger';

export class ConfirmPasswordResponseDto {
  @ApiProperty({ description: 'Unix seconds of the confirmation' })
  lastLogin: number;
}
