import type { Request } from 'express';
import type { AppConfig } from '../platform/config/app-config';
import type { AnyDomainError } from '../platform/errors/domain-error';
import type { InternalFailure } from './internal-failure';

export interface RenderedError {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** OCS only: send the body as plain JSON even when the client asked for XML. */
  bypassEnvelope?: boolean;
}

export interface ErrorRenderContext {
  req: Request;
  config: AppConfig;
  /** Whether the caller is a site administrator (Gitea shows 500 texts to admins only). */
  callerIsAdmin: boolean;
}

export type ErrorRenderer = (
  error: AnyDomainError | InternalFailure,
  context: ErrorRenderContext,
) => RenderedError;
