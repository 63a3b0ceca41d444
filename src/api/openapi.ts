import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { DEVPLANE_VERSION } from '../platform/build-info';

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
    .addTag('ocs', 'Nextcloud OCS dialect')
    .addTag('coder', 'Coder-style platform API')
    .addTag('gitea', 'Gitea-style code hosting API')
    .addTag('operations', 'Health and readiness')
    .build();
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
 * Swagger UI at /docs, the document at /docs-json; the experimental ones at /docs-experimental(-json).
 * The caller registers them behind the API's routes (IndexedExpressAdapter.deferUntilRoutes).
 */
export function setupOpenApi(app: INestApplication): void {
  SwaggerModule.setup('docs', app, () => buildOpenApiDocument(app), { jsonDocumentUrl: 'docs-json' });
  SwaggerModule.setup('docs-experimental', app, () => buildExperimentalOpenApiDocument(app), {
    jsonDocumentUrl: 'docs-experimental-json',
  });
}
