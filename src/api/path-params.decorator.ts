import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { ApiParam } from '@nestjs/swagger';

/** @nestjs/swagger's metadata key of @ApiParam (API_PARAMETERS; the package exports no constants). */
const API_PARAMETERS = 'swagger/apiParameters';

interface ParameterMetadata {
  name?: string;
  in?: string;
}

/** Names of the `:name` segments of Express route paths. */
function pathParamNames(paths: unknown[]): string[] {
  const names = new Set<string>();
  for (const path of paths)
    for (const match of String(path).matchAll(/:([A-Za-z_][A-Za-z0-9_]*)/g)) names.add(match[1]!);
  return [...names];
}

/**
 * Documents every path parameter of a controller's routes in the OpenAPI document. Handlers that
 * take `@Param() params: {...}` (one object) are invisible to @nestjs/swagger, so Swagger UI's
 * "Try it out" would send the literal `{owner}`: this adds a required string `in: path` parameter
 * for each `:name` of the controller and route paths that is not declared already (by @ApiParam,
 * e.g. @RepoAccess's `owner`/`repo`, or by a named `@Param('name')`, which swagger sees itself).
 * Place it ABOVE the dialect's controller decorator (decorators apply bottom-up: the class path must
 * be set first). `descriptions` names what a parameter is, by parameter name.
 */
export function DocumentPathParams(descriptions: Record<string, string> = {}): ClassDecorator {
  return (target) => {
    const classPath = Reflect.getMetadata(PATH_METADATA, target) as string | string[] | undefined;
    const classPaths = ([] as string[]).concat(classPath ?? []);
    const prototype = target.prototype as Record<string, unknown>;
    for (const key of Object.getOwnPropertyNames(prototype)) {
      const descriptor = Object.getOwnPropertyDescriptor(prototype, key);
      const handler = descriptor?.value as object | undefined;
      if (!descriptor || typeof handler !== 'function') continue;
      const methodPath = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
      if (methodPath === undefined) continue;
      const declared = new Set(
        ((Reflect.getMetadata(API_PARAMETERS, handler) as ParameterMetadata[] | undefined) ?? [])
          .filter((parameter) => parameter.in === 'path' && parameter.name)
          .map((parameter) => parameter.name!),
      );
      const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, target, key) ?? {}) as Record<
        string,
        { data?: unknown }
      >;
      for (const [argKey, arg] of Object.entries(args)) {
        if (argKey.split(':')[0] === String(RouteParamtypes.PARAM) && typeof arg.data === 'string')
          declared.add(arg.data);
      }
      for (const name of pathParamNames([...classPaths, ...([] as string[]).concat(methodPath)])) {
        if (declared.has(name)) continue;
        ApiParam({ name, type: String, required: true, description: descriptions[name] })(
          prototype,
          key,
          descriptor,
        );
      }
    }
  };
}
