import { ApiProperty } from '@nestjs/swagger';

/** Wire shape of one check (documentation); the elements are parsed by UpdateWorkflowDto.checks and judged by the service. */
export class WorkflowCheckDto {
  @ApiProperty({ minLength: 1, example: 'OCA\\WorkflowEngine\\Check\\FileName' })
  class: string;

  @ApiProperty({
    enum: [
      'is',
      'in',
      'match',
      'matches',
      'less',
      'greater',
      'matchesIPv4',
      'matchesIPv6',
      '!is',
      '!in',
      '!match',
      '!matches',
      '!less',
      '!greater',
      '!matchesIPv4',
      '!matchesIPv6',
    ],
  })
  operator: string;

  @ApiProperty({
    example: '/\\.exe$/i',
    description: 'At most 2048 bytes; regular expressions run on RE2 (no look-around, no back-references)',
  })
  value: string;
}
