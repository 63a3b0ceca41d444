import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import type { AppConfig } from '../../platform/config/app-config';
import { APP_CONFIG } from '../../platform/config/config.token';
import { BadRequestError, UnsupportedMediaTypeError } from '../../platform/errors/domain-error';
import { type ApiDialect, routeDialect, setRequestDialect, setRequestSseApi } from '../dialect';
import { containsNul, NUL_CHARACTER } from '../reject-nul-bytes';
import { wellFormedStrings } from '../well-formed-strings';
import { SSE_API_METADATA } from '../sse/sse-endpoint.decorator';
import { BODY_METADATA, type BodyMode, DEFAULT_BODY_MODE } from './body-mode';
import { discardRest } from './discard-body';
import { LargeBodyGate } from './large-body-gate';
import { MultipartForm, multipartTooLarge, setRequestMultipartForm } from './multipart-form';
import { readBody, readFormBody, readJsonBody } from './read-body';

const JSON_TYPES = ['application/json', 'application/*+json'];
const FORM_TYPE = 'application/x-www-form-urlencoded';
const MULTIPART_TYPE = 'multipart/form-data';
const MIB = 1024 * 1024;

/** As body-parser decides: a body is announced (even an empty one, `Content-Length: 0`). */
function hasBody(req: Request): boolean {
  return req.headers['transfer-encoding'] !== undefined || req.headers['content-length'] !== undefined;
}

/** A body with at least one byte announced (`curl -X POST -d ''` sends an empty form: nothing to refuse). */
function hasContent(req: Request): boolean {
  return req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] ?? '0') !== '0';
}

/**
 * First of the global guards: records the matched route's dialect (from its metadata) on the request,
 * so the rate limit's and the credentials' refusals are rendered in the route's dialect. Reads nothing.
 */
@Injectable()
export class RequestDialectGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http') return true;
    const req = context.switchToHttp().getRequest<Request>();
    const dialect = routeDialect(this.reflector, context);
    setRequestDialect(req, dialect);
    if (dialect === 'sse') {
      setRequestSseApi(
        req,
        this.reflector.getAllAndOverride<ApiDialect | undefined>(SSE_API_METADATA, [
          context.getHandler(),
          context.getClass(),
        ]) ?? 'plain',
      );
    }
    return true;
  }
}

/**
 * Reads the request body the way the matched route declares (src/api/body/README.md). Registered
 * AFTER the rate limit and the credentials guard (app.module.ts): an anonymous or throttled request
 * is refused before a byte of its body is read or inflated (issue #31.4). Limits count inflated bytes
 * and fail with a 413 the moment they are passed; JSON and form bodies nest at most MAX_BODY_DEPTH
 * levels (400). Failures are thrown and rendered by the route's own dialect filter.
 */
@Injectable()
export class RequestBodyGuard implements CanActivate {
  /** Large JSON bodies in memory at once (LARGE_BODY_CONCURRENCY, issue #46.1). */
  private readonly largeBodies: LargeBodyGate;

  constructor(
    private readonly reflector: Reflector,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.largeBodies = new LargeBodyGate(config.largeBodyConcurrency);
  }

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const req = context.switchToHttp().getRequest<Request>();
    const res = context.switchToHttp().getResponse<Response>();
    const mode =
      this.reflector.getAllAndOverride<BodyMode | undefined>(BODY_METADATA, [
        context.getHandler(),
        context.getClass(),
      ]) ?? DEFAULT_BODY_MODE;
    // Most requests carry no body: answered synchronously, no promise on the hot path.
    if (mode.kind === 'stream' || (mode.kind !== 'multipart' && !hasBody(req))) return true;
    return this.read(mode, req, res).then(() => true);
  }

  private async read(mode: BodyMode, req: Request, res: Response): Promise<void> {
    switch (mode.kind) {
      case 'stream':
        return;
      case 'multipart':
        return this.multipart(mode.maxBytes, req, res);
      case 'raw':
        req.body = await readBody(req, res, mode.limitBytes);
        return;
      case 'large-json':
        // A slot before the first byte is read, held until the response is over (large-body-gate.ts).
        await this.largeBodies.enter(req, res);
        return this.json(mode.limitBytes ?? this.config.npmPublishMaxSizeMb * MIB, false, req, res);
      case 'json':
        return this.json(mode.limitBytes, mode.form, req, res);
    }
  }

  private async json(limitBytes: number, form: boolean, req: Request, res: Response): Promise<void> {
    if (req.is(JSON_TYPES)) {
      req.body = await readJsonBody(req, res, limitBytes);
    } else if (req.is(FORM_TYPE)) {
      if (!form && !hasContent(req)) return;
      if (!form)
        throw new UnsupportedMediaTypeError('Form-encoded bodies are not accepted here; send JSON.', {
          code: 'FORM_NOT_ACCEPTED',
        });
      req.body = await readFormBody(req, res, limitBytes);
    } else if (req.is(MULTIPART_TYPE)) {
      if (!hasContent(req)) return;
      throw new UnsupportedMediaTypeError('Multipart bodies are not accepted here; send JSON.', {
        code: 'MULTIPART_NOT_ACCEPTED',
      });
    } else {
      // Other content types are not read (as before): the route validates a missing body.
      return;
    }
    // PostgreSQL text holds neither NUL nor lone surrogates: refused / replaced here, on parsed bodies only.
    if (containsNul(req.body)) throw new BadRequestError(NUL_CHARACTER, { code: 'NUL_CHARACTER' });
    wellFormedStrings()(req, res, () => undefined);
  }

  private multipart(maxBytes: number, req: Request, res: Response): void {
    if (!req.is(MULTIPART_TYPE)) {
      throw new UnsupportedMediaTypeError('Expected a multipart/form-data body.', {
        code: 'MULTIPART_REQUIRED',
      });
    }
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBytes) {
      discardRest(req, res);
      throw multipartTooLarge(maxBytes);
    }
    setRequestMultipartForm(req, new MultipartForm(req, res, maxBytes));
  }
}
