import { Get, HttpCode, type MessageEvent, Module, Post, Put, Query, Req } from '@nestjs/common';
import type { Request } from 'express';
import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Readable } from 'node:stream';
import { concat, Observable, of, throwError } from 'rxjs';
import {
  BodyStream,
  LargeJsonBody,
  Multipart,
  MultipartBody,
  RawBody,
  StreamBody,
} from '../../src/api/body/body.decorators';
import type { MultipartForm } from '../../src/api/body/multipart-form';
import { CoderController } from '../../src/api/coder/coder-controller.decorator';
import { GenericController } from '../../src/api/generic/generic-controller.decorator';
import { GitController } from '../../src/api/git/git-controller.decorator';
import { GiteaController } from '../../src/api/gitea/gitea-controller.decorator';
import { NpmController } from '../../src/api/npm/npm-controller.decorator';
import { SseEndpoint } from '../../src/api/sse/sse-endpoint.decorator';
import { Authenticated, Public } from '../../src/api/access/access.decorators';
import {
  ForbiddenError,
  InvalidError,
  NotFoundError,
  TooLargeError,
  UnauthenticatedError,
} from '../../src/platform/errors/domain-error';

/**
 * Fixture controllers of the protocol dialects and body modes (tests only): each dialect's routes
 * throw the error named by `?kind=` or read their body in the declared mode and describe what arrived.
 */

function fail(kind: string | undefined): never {
  switch (kind) {
    case 'unauthenticated':
      throw new UnauthenticatedError('missing', 'Authentication required.');
    case 'forbidden':
      throw new ForbiddenError('You may not do that.');
    case 'invalid':
      throw new InvalidError('Validation failed.', {
        fields: [{ field: 'version', detail: 'must be semver' }],
      });
    case 'too_large':
      throw new TooLargeError('File too large.');
    case 'internal':
      throw new Error('secret internal detail');
    default:
      throw new NotFoundError('Package not found.');
  }
}

async function digest(stream: Readable): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of stream) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { bytes, sha256: hash.digest('hex') };
}

/** Signals from stream handlers to the test (the handler saw bytes before the client finished). */
export const fixtureSignals = new EventEmitter();

@GitController('fixtures/owner/fixture-repo.git')
@Public()
export class GitFixtureController {
  @Get('info/refs')
  @Authenticated({ scopes: ['repository'] })
  refs(): string {
    return 'refs';
  }

  @Get('fail')
  fail(@Query('kind') kind?: string): never {
    fail(kind);
  }

  @Post('git-upload-pack')
  @HttpCode(200)
  @StreamBody()
  async uploadPack(@BodyStream() body: Readable, @Req() req: Request): Promise<string> {
    const { bytes, sha256 } = await digest(body);
    return `${bytes} ${sha256} ${req.body === undefined ? 'unparsed' : 'parsed'}`;
  }
}

// Under /fixtures: the real registries own /api/packages/{owner}/npm and /generic.
@NpmController('fixture-owner/npm', { root: 'fixtures/packages' })
@Public()
export class NpmFixtureController {
  @Get('private-package')
  @Authenticated({ scopes: ['package'] })
  privatePackage(): object {
    return {};
  }

  @Get('fail')
  fail(@Query('kind') kind?: string): never {
    fail(kind);
  }

  @Put('publish')
  @LargeJsonBody()
  publish(@Req() req: Request): object {
    const body = req.body as { name?: string; _attachments?: Record<string, { data: string }> };
    const data = Object.values(body._attachments ?? {})[0]?.data ?? '';
    return { name: body.name, attachmentLength: data.length };
  }
}

@GenericController('fixture-owner/generic', { root: 'fixtures/packages' })
@Public()
export class GenericFixtureController {
  @Get('private/1.0/file.bin')
  @Authenticated({ scopes: ['package'] })
  download(): string {
    return 'file';
  }

  @Get('fail')
  fail(@Query('kind') kind?: string): never {
    fail(kind);
  }

  @Put('stream/1.0/file.bin')
  @StreamBody()
  async upload(@BodyStream() body: Readable, @Req() req: Request): Promise<string> {
    let first = true;
    const hash = createHash('sha256');
    let bytes = 0;
    for await (const chunk of body) {
      if (first) fixtureSignals.emit('stream-started', { bodyParsed: req.body !== undefined });
      first = false;
      hash.update(chunk as Buffer);
      bytes += (chunk as Buffer).length;
    }
    return `${bytes} ${hash.digest('hex')}\n`;
  }

  @Put('raw/1.0/small.bin')
  @RawBody({ limitBytes: 1024 })
  raw(@Req() req: Request): string {
    return `${Buffer.isBuffer(req.body) ? (req.body as Buffer).length : -1}\n`;
  }
}

@GiteaController('fixture-uploads')
@Public()
export class MultipartFixtureController {
  @Post('files')
  @MultipartBody({ maxBytes: 1024 * 1024 })
  async files(@Multipart() form: MultipartForm): Promise<object> {
    const fields: Record<string, string> = {};
    const files: {
      field: string;
      filename: string;
      mimeType: string;
      streamed: boolean;
      bytes: number;
      sha256: string;
    }[] = [];
    try {
      for await (const part of form.parts()) {
        if (part.kind === 'field') fields[part.name] = part.value;
        else {
          fixtureSignals.emit('file-started');
          files.push({
            field: part.name,
            filename: part.filename,
            mimeType: part.mimeType,
            streamed: typeof part.stream.pipe === 'function',
            ...(await digest(part.stream)),
          });
        }
      }
    } catch (error) {
      fixtureSignals.emit('multipart-failed', error);
      throw error;
    }
    return { fields, files };
  }
}

@CoderController('fixture-events')
@Public()
export class SseFixtureController {
  @SseEndpoint('watch', { api: 'coder' })
  watch(@Query('fail') when?: string): Observable<MessageEvent> {
    if (when === 'before') throw new NotFoundError('Workspace not found.', { detail: 'no such workspace' });
    const first = of<MessageEvent>({ type: 'update', data: { n: 1 } });
    if (when !== 'after') return first;
    // Fails once the stream (and its headers) are out.
    const late = new Observable<MessageEvent>((subscriber) => {
      const timer = setTimeout(() => subscriber.error(new ForbiddenError('Access revoked.')), 50);
      return () => clearTimeout(timer);
    });
    return concat(
      first,
      late,
      throwError(() => new Error('unreachable')),
    );
  }
}

@Module({
  controllers: [
    GitFixtureController,
    NpmFixtureController,
    GenericFixtureController,
    MultipartFixtureController,
    SseFixtureController,
  ],
})
export class ProtocolFixturesModule {}
