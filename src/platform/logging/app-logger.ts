import type { LoggerService } from '@nestjs/common';
import type { Level, Logger } from 'pino';
import { currentRequestContext } from '../http/request-context';

/**
 * Nest's logger interface over pino: `new Logger('Context').warn(...)` anywhere in the app writes one
 * JSON line with `context`, and `reqId` when it runs inside a request (the id the request log carries).
 * Nest calls `error(message, stack?, context?)` and the other levels `(message, context?)`; an object
 * message is merged into the line, an Error goes to `err` (pino's serializer).
 */
export class AppLogger implements LoggerService {
  constructor(private readonly pino: Logger) {}

  log(message: unknown, ...params: unknown[]): void {
    this.write('info', message, params);
  }
  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }
  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }
  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }
  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, params);
  }
  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  private write(level: Level, message: unknown, params: unknown[]): void {
    if (!this.pino.isLevelEnabled(level)) return;
    const rest = [...params];
    const context = rest.length > 0 && typeof rest[rest.length - 1] === 'string' ? rest.pop() : undefined;
    const fields: Record<string, unknown> = {};
    if (context !== undefined) fields.context = context;
    const reqId = currentRequestContext()?.requestId;
    if (reqId) fields.reqId = reqId;
    if (level === 'error' && typeof rest[0] === 'string' && !(message instanceof Error)) {
      fields.stack = rest.shift();
    }
    if (rest.length > 0) fields.args = rest;
    if (message instanceof Error) {
      this.pino[level]({ ...fields, err: message }, message.message);
    } else if (message !== null && typeof message === 'object') {
      this.pino[level]({ ...fields, ...(message as Record<string, unknown>) });
    } else {
      this.pino[level](fields, String(message));
    }
  }
}
