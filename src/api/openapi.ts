import type { INestApplication } from '@nestjs/common';
import { PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { DEVPLANE_VERSION } from '../platform/build-info';
import {
  ACCESS_METADATA,
  type AccessDeclaration,
  CALLER_PARAM_FACTORIES,
  RESOURCE_ASSIGNMENT,
  SECURITY_SCHEMES,
} from './access/access.decorators';

/** @nestjs/swagger's metadata key of `@ApiSecurity` (DECORATORS.API_SECURITY): read per handler. */
const API_SECURITY = 'swagger/apiSecurity';

/**
 * Optional authentication (issue 51.2): OpenAPI's `security: [{}, {scheme}, ...]` (anonymous, or any one
 * scheme). A public route whose answer depends on the caller (a resource assignment: private
 * repositories, packages, organizations; or a CurrentPrincipal/CurrentCaller parameter) accepts
 * credentials, and Swagger UI sends the authorized token only to operations that list a scheme: with
 * `security: []` "Try it out" read a private repository as anonymous (404). Set as the handlers'
 * swagger metadata before the document is built; public routes that ignore the caller keep `[]`.
 */
function markOptionalAuthentication(app: INestApplication): void {
  const optional = [{}, ...SECURITY_SCHEMES.map((scheme) => ({ [scheme]: [] }))];
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as (new (...args: never[]) => object) | null;
      if (!controller?.prototype) continue;
      const prototype = controller.prototype as object;
      for (const name of Object.getOwnPropertyNames(prototype)) {
        // The descriptor's value: reading the property would run getters.
        const handler: unknown =
          name === 'constructor' ? undefined : Object.getOwnPropertyDescriptor(prototype, name)?.value;
        if (typeof handler !== 'function' || Reflect.getMetadata(PATH_METADATA, handler) === undefined)
          continue;
        const access = (Reflect.getMetadata(ACCESS_METADATA, handler) ??
          Reflect.getMetadata(ACCESS_METADATA, controller)) as AccessDeclaration | undefined;
        if (access?.kind !== 'public' || Reflect.getMetadata(API_SECURITY, handler)) continue;
        const assigned =
          Reflect.getMetadata(RESOURCE_ASSIGNMENT, handler) ??
          Reflect.getMetadata(RESOURCE_ASSIGNMENT, controller);
        const params = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, name) ?? {}) as Record<
          string,
          { factory?: unknown }
        >;
        const readsCaller = Object.values(params).some((param) => CALLER_PARAM_FACTORIES.has(param.factory));
        if (assigned || readsCaller) Reflect.defineMetadata(API_SECURITY, optional, handler);
      }
    }
  }
}

/**
 * Experimental surfaces Coder leaves out of its public API document (chats): served apart, in
 * `buildExperimentalOpenApiDocument` at `/docs-experimental-json`.
 */
export const EXPERIMENTAL_DOCUMENT_PREFIXES = ['/api/experimental/chats'];

const isExperimental = (route: string): boolean =>
  EXPERIMENTAL_DOCUMENT_PREFIXES.some((prefix) => route === prefix || route.startsWith(`${prefix}/`));

/** The public document: every route but the experimental surfaces. */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const document = buildFullDocument(app);
  for (const route of Object.keys(document.paths)) if (isExperimental(route)) delete document.paths[route];
  return document;
}

/** The experimental surfaces only (chats), with the same schemes and schemas. */
export function buildExperimentalOpenApiDocument(app: INestApplication): OpenAPIObject {
  const document = buildFullDocument(app);
  for (const route of Object.keys(document.paths)) if (!isExperimental(route)) delete document.paths[route];
  document.info.title = 'devplane (experimental)';
  return document;
}

function buildFullDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('devplane')
    .setDescription(
      'One backend, three wire dialects: Nextcloud OCS workflow rules (`/ocs`), a Coder-style platform API ' +
        '(`/api/v2`, `/api/experimental`) and a Gitea-style code hosting API (`/api/v1`).',
    )
    .setVersion(DEVPLANE_VERSION)
    // Relative: the document is served by the instance it describes, whatever its PUBLIC_URL (Redocly: no-empty-servers).
    .addServer('/', 'this instance')
    .addApiKey({ type: 'apiKey', in: 'header', name: 'Service-Session-Token' }, 'session-token')
    .addBearerAuth(
      { type: 'http', scheme: 'bearer', description: '`<10-char id>-<22-char secret>`' },
      'bearer',
    )
    .addApiKey(
      { type: 'apiKey', in: 'header', name: 'Authorization', description: 'Gitea style: `token <key>`' },
      'gitea-token',
    )
    .addBasicAuth(
      { type: 'http', scheme: 'basic', description: 'username or email, with a password or a token' },
      'basic',
    )
    .addBearerAuth(
      { type: 'http', scheme: 'bearer', description: 'the `METRICS_TOKEN` setting (`GET /metrics` only)' },
      'metrics-token',
    )
    .addTag('ocs', 'Nextcloud OCS dialect')
    .addTag('coder', 'Coder-style platform API')
    .addTag('gitea', 'Gitea-style code hosting API')
    .addTag('git', 'git smart HTTP (clone, fetch, push): `<PUBLIC_URL><owner>/<repo>.git`')
    .addTag('operations', 'Health and readiness')
    .build();
  markOptionalAuthentication(app);
  const document = SwaggerModule.createDocument(app, config);
  // Every route is @Public() or @Authenticated() (a test walks them all), and @Authenticated() documents
  // its schemes: an operation without a security requirement is public, which OpenAPI says with `[]`.
  for (const item of Object.values(document.paths)) {
    for (const method of ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const) {
      const operation = item[method];
      if (operation && !operation.security) operation.security = [];
    }
  }
  return document;
}

/**
 * Swagger UI's options (issues 46.6, 51.2): no validator (its default sends the document's URL to
 * validator.swagger.io from the reader's browser), and the authorized token kept across reloads (in
 * the browser's localStorage, as Swagger UI does).
 */
export const SWAGGER_UI_OPTIONS = { validatorUrl: null, persistAuthorization: true };

/**
 * Swagger UI at /docs, the document at /docs-json; the experimental ones at /docs-experimental(-json).
 * The caller registers them behind the API's routes (IndexedExpressAdapter.deferUntilRoutes).
 */
export function setupOpenApi(app: INestApplication): void {
  SwaggerModule.setup('docs', app, () => buildOpenApiDocument(app), {
    jsonDocumentUrl: 'docs-json',
    swaggerOptions: SWAGGER_UI_OPTIONS,
  });
  SwaggerModule.setup('docs-experimental', app, () => buildExperimentalOpenApiDocument(app), {
    jsonDocumentUrl: 'docs-experimental-json',
    swaggerOptions: SWAGGER_UI_OPTIONS,
  });
}
