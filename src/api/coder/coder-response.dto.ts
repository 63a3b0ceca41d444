import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class CoderValidationErrorDto {
  @ApiProperty() field: string;
  @ApiProperty() detail: string;
}

/** Coder's error body (codersdk.Response). */
export class CoderResponseDto {
  @ApiProperty() message: string;
  @ApiPropertyOptional() detail?: string;
  @ApiPropertyOptional({ type: [CoderValidationErrorDto] }) validations?: CoderValidationErrorDto[];
}
