import { Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty } from '@nestjs/swagger';
import { GiteaController } from '../../api/gitea/gitea-controller.decorator';
import { DEVPLANE_VERSION, GITEA_COMPAT_VERSION } from '../../platform/build-info';
import { Public } from '../../api/access/access.decorators';

export class ServerVersionDto {
  @ApiProperty({ example: '1.26.0+devplane.0.1.0' }) version: string;
}

@GiteaController('version')
export class GiteaVersionController {
  @Get()
  @Public()
  @ApiOperation({ summary: "The server's version (Gitea-compatible semantic version)" })
  @ApiOkResponse({ type: ServerVersionDto })
  get(): ServerVersionDto {
    return { version: `${GITEA_COMPAT_VERSION}+devplane.${DEVPLANE_VERSION}` };
  }
}
