import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import scalar from '@scalar/fastify-api-reference';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import type { Config } from '../platform/config.js';

/** The OpenAPI document is generated from the routes' zod schemas; /reference renders it. */
export async function registerOpenApi(app: FastifyInstance, config: Config): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Polyvox API',
        version: '0.1.0',
        description:
          'Text to speech and voice cloning over several engines. Errors are `{"error": {"code", "message", "request_id"}}`; messages follow `lang` or `Accept-Language` (en, zh-CN, zh-TW).',
        license: { name: 'GPL-3.0-or-later', identifier: 'GPL-3.0-or-later' },
      },
      servers: [{ url: config.PUBLIC_URL }],
      components: {
        securitySchemes: {
          session: { type: 'apiKey', in: 'header', name: 'x-sid' },
          cookie: { type: 'apiKey', in: 'cookie', name: 'sid' },
          bearer: { type: 'http', scheme: 'bearer' },
        },
      },
      security: [{ session: [] }, { cookie: [] }],
    },
    transform: jsonSchemaTransform,
    transformObject: jsonSchemaTransformObject,
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  await app.register(scalar, { routePrefix: '/reference', configuration: { url: '/openapi.json', withDefaultFonts: false } });
}
