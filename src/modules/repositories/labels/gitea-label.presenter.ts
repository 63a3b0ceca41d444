import { ApiProperty } from '@nestjs/swagger';
import type { Label } from './label.entity';

/** Gitea's `Label` JSON: the colour without `#`. */
export class GiteaLabelDto {
  @ApiProperty() id: number;
  @ApiProperty() name: string;
  @ApiProperty() exclusive: boolean;
  @ApiProperty() is_archived: boolean;
  @ApiProperty() color: string;
  @ApiProperty() description: string;
  @ApiProperty() url: string;
}

/** `api` is the repository's API base (`<PUBLIC_URL>api/v1/repos/<owner>/<repo>`). */
export function presentGiteaLabel(label: Label, api: string): GiteaLabelDto {
  return {
    id: Number(label.id),
    name: label.name,
    exclusive: label.exclusive,
    is_archived: label.isArchived,
    color: label.color.replace(/^#/, ''),
    description: label.description,
    url: `${api}/labels/${label.id}`,
  };
}
