import { applyDecorators, type Type } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, type ApiResponseSchemaHost, getSchemaPath } from '@nestjs/swagger';

type SchemaObject = ApiResponseSchemaHost['schema'];

export type OcsDataSchema = Type<unknown> | { array: Type<unknown> } | SchemaObject;

/** `{ocs: {meta, data}}` with `data` as given: a DTO class, `{ array: Dto }`, or a plain schema. */
export function ApiOcsOkResponse(data: OcsDataSchema, description?: string): MethodDecorator {
  const models: Type<unknown>[] = [];
  let dataSchema: SchemaObject;
  if (typeof data === 'function') {
    models.push(data);
    dataSchema = { $ref: getSchemaPath(data) } as SchemaObject;
  } else if ('array' in data && typeof data.array === 'function') {
    models.push(data.array);
    dataSchema = { type: 'array', items: { $ref: getSchemaPath(data.array) } };
  } else {
    dataSchema = data as SchemaObject;
  }
  return applyDecorators(
    ApiExtraModels(...models),
    ApiOkResponse({
      description: description ?? 'The OCS envelope',
      schema: {
        type: 'object',
        required: ['ocs'],
        properties: {
          ocs: {
            type: 'object',
            required: ['meta', 'data'],
            properties: {
              meta: {
                type: 'object',
                required: ['status', 'statuscode', 'message'],
                properties: {
                  status: { type: 'string', enum: ['ok', 'failure'] },
                  statuscode: { type: 'integer', example: 200 },
                  message: { type: 'string', example: 'OK' },
                  totalitems: { type: 'string' },
                  itemsperpage: { type: 'string' },
                },
              },
              data: dataSchema,
            },
          },
        },
      },
    }),
  );
}
