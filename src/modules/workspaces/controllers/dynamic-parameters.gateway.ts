import { type OnGatewayConnection } from '@nestjs/websockets';
import type { IncomingMessage } from 'node:http';
import type { RawData, WebSocket } from 'ws';
import { NotFoundError } from '../../../platform/errors/domain-error';
import { upgradedConnection } from '../../../platform/realtime/realtime-gateways.service';
import { type UpgradePrecheck } from '../../../platform/realtime/realtime-ports';
import { upgradePathParams } from '../../../platform/realtime/realtime-ws.adapter';
import { isUuid } from '../../../platform/text/uuid';
import { WorkspacesService } from '../workspaces.service';
import { CoderGateway, requireGatewayUser } from '../../../api/coder/coder-gateway';

export const DYNAMIC_PARAMETERS_PATH = '/api/v2/templateversions/:templateversion/dynamic-parameters';

/**
 * Coder's dynamic-parameters WebSocket (issue 48 item 4), which the create-workspace form needs before
 * it enables its button: the server first sends the form for no inputs (`id: -1`), then answers each
 * `DynamicParametersRequest {id, inputs}` text frame with one `DynamicParametersResponse {id, diagnostics,
 * parameters}` of the same id. devplane's templates have no parameters: every answer is empty. A frame
 * that is not such a request is answered with a diagnostic of the same shape (id 0), as the form shows them.
 */
// Coder's wire: an anonymous upgrade is an HTTP 401, not a close after the upgrade.
@CoderGateway(DYNAMIC_PARAMETERS_PATH, {
  tokenScope: { type: 'template', action: 'read' },
  refuseBeforeUpgrade: true,
})
export class DynamicParametersGateway implements OnGatewayConnection, UpgradePrecheck {
  constructor(private readonly workspaces: WorkspacesService) {}

  async precheckUpgrade(req: IncomingMessage, _url: URL, context?: unknown): Promise<void> {
    const id = upgradePathParams(req).templateversion ?? '';
    if (!isUuid(id)) throw new NotFoundError('Resource not found or you do not have access to this resource');
    await this.workspaces.requireVersion(requireGatewayUser(context), id);
  }

  handleConnection(socket: WebSocket, req: IncomingMessage): void {
    const connection = upgradedConnection(req);
    if (!connection) return;
    connection.send(JSON.stringify({ id: -1, diagnostics: [], parameters: [] }));
    socket.on('message', (data: RawData) => {
      let id = 0;
      let valid = false;
      try {
        const request = JSON.parse(data.toString()) as { id?: unknown; inputs?: unknown };
        if (request && typeof request === 'object' && Number.isInteger(request.id ?? 0)) {
          id = (request.id as number | undefined) ?? 0;
          valid =
            request.inputs === undefined || (typeof request.inputs === 'object' && request.inputs !== null);
        }
      } catch {
        valid = false;
      }
      const diagnostics = valid
        ? []
        : [
            {
              severity: 'error',
              summary: 'Invalid request',
              detail: 'Expected a DynamicParametersRequest.',
              extra: { code: '' },
            },
          ];
      connection.send(JSON.stringify({ id, diagnostics, parameters: [] }));
    });
  }
}
