import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsString } from 'class-validator';

/** POST /login/confirm. Any failure (missing, empty, not a string, body not an object) answers Nextcloud's 403 `[]` (ConfirmPasswordFailureFilter). */
export class ConfirmPasswordDto {
  @ApiProperty()
  @IsString()
  @IsNotEmpty()
  password: string;
}
