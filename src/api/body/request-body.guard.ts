import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  json,
  raw,
  urlencoded,
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
} from 'express';
import type { AppConfig } from '../../platform/config/app-config';
import { APP_CONFIG } from '../../platform/config/config.token';
import { BadRequestError, UnsupportedMediaTypeError } from '../../platform/errors/domain-error';
import { type ApiDialect, routeDialect, setRequestDialect, setRequestSseApi } from '../dialect';
import { containsNul, NUL_CHARACTER } from '../reject-nul-bytes';
import { wellFormedStrings } from '../well-formed-strings';
import { SSE_API_METADATA } from '../sse/sse-endpoint.decorator';
import { BODY_METADATA, type BodyMode, DEFAULT_BODY_MODE } from './body-mode';
import { MultipartForm, multipartTooLarge, setRequestMultipartForm } from './multipart-form';

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

function run(parser: RequestHandler, req: Request, res: Response): Promise<void> {
  return new Promise((resolve, reject) => {
    const next: NextFunction = (error?: unknown) => (error ? reject(parserFailure(error, req)) : resolve());
    void parser(req, res, next);
  });
}

/**
 * A plain body whose declared length is over the limit is refused before any of it is read (body-parser
 * would read and discard all of it first: up to gigabytes on the npm route). Rendered exactly as
 * body-parser's own 413 (normalize-exception.ts); the connection closes after the answer.
 */
function refuseDeclaredOverLimit(limitBytes: number, req: Request, res: Response): void {
  const declared = Number(req.headers['content-length']);
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') return; // the limit counts inflated bytes
  if (!Number.isFinite(declared) || declared <= limitBytes) return;
  res.setHeader('Connection', 'close');
  throw Object.assign(new Error('request entity too large'), {
    type: 'entity.too.large',
    status: 413,
    limit: limitBytes,
  });
}

/**
 * body-parser reports its own failures with a `type` (rendered by normalizeException); a stream that
 * is not the gzip/deflate it claims comes back as a bare zlib error, a 400 here (it was a 500).
 */
function parserFailure(error: unknown, req: Request): unknown {
  if (typeof error === 'object' && error !== null && typeof (error as { type?: unknown }).type === 'string')
    return error;
  const encoding = req.headers['content-encoding'];
  const detail = error instanceof Error ? error.message : String(error);
  if (encoding && encoding !== 'identity') {
    return new BadRequestError(`Request body is not valid ${encoding} data.`, {
      code: 'BAD_CONTENT_ENCODING',
      detail,
    });
  }
  return new BadRequestError('Request body could not be read.', { code: 'BAD_BODY', detail });
}

/**
 * Reads the request body the way the matched route declares (src/api/body/README.md), before the
 * credentials guard and the pipes run, and records the route's dialect on the request. A global guard
 * (registered first) because only after routing is the handler, hence its metadata, known; failures
 * are thrown and rendered by the route's own dialect filter.
 */
@Injectable()
export class RequestBodyGuard implements CanActivate {
  private readonly parsers = new Map<string, RequestHandler>();

  constructor(
    private readonly reflector: Reflector,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const req = context.switchToHttp().getRequest<Request>();
    const res = context.switchToHttp().getResponse<Response>();
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
        if (!hasBody(req)) return;
        refuseDeclaredOverLimit(mode.limitBytes, req, res);
        await run(
          this.parser(`raw:${mode.limitBytes}`, () => raw({ limit: mode.limitBytes, type: () => true })),
          req,
          res,
        );
        return;
      case 'large-json':
        return this.json(mode.limitBytes ?? this.config.npmPublishMaxSizeMb * MIB, false, req, res);
      case 'json':
        return this.json(mode.limitBytes, mode.form, req, res);
    }
  }

  private async json(limitBytes: number, form: boolean, req: Request, res: Response): Promise<void> {
    if (!hasBody(req)) return;
    if (req.is(JSON_TYPES)) {
      refuseDeclaredOverLimit(limitBytes, req, res);
      await run(
        this.parser(`json:${limitBytes}`, () => json({ limit: limitBytes, type: JSON_TYPES })),
        req,
        res,
      );
    } else if (req.is(FORM_TYPE)) {
      if (!form && !hasContent(req)) return;
      if (!form)
        throw new UnsupportedMediaTypeError('Form-encoded bodies are not accepted here; send JSON.', {
          code: 'FORM_NOT_ACCEPTED',
        });
      refuseDeclaredOverLimit(limitBytes, req, res);
      await run(
        this.parser(`form:${limitBytes}`, () => urlencoded({ limit: limitBytes, extended: true })),
        req,
        res,
      );
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
      res.setHeader('Connection', 'close');
      throw multipartTooLarge(maxBytes);
    }
    setRequestMultipartForm(req, new MultipartForm(req, res, maxBytes));
  }

  private parser(key: string, create: () => RequestHandler): RequestHandler {
    let parser = this.parsers.get(key);
    if (!parser) {
      parser = create();
      this.parsers.set(key, parser);
    }
    return parser;
  }
}
