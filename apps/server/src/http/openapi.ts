import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import scalar from '@scalar/fastify-api-reference';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import type { Config } from '../platform/config.js';

export const AUDIO_RESPONSE = 'Audio bytes in the requested format; `x-credits-charged` says what they cost.';
const AUDIO_TYPES = ['audio/mpeg', 'audio/wav', 'audio/ogg', 'audio/pcm'];

/** Responses marked as audio are bytes: document them under the audio media types, not JSON. */
function audioResponses(doc: Record<string, any>): Record<string, any> {
  for (const operations of Object.values<Record<string, any>>(doc.paths ?? {})) {
    for (const operation of Object.values<Record<string, any>>(operations)) {
      const ok = operation?.responses?.['200'];
      const schema = ok?.content?.['application/json']?.schema;
      if (schema?.description !== AUDIO_RESPONSE) continue;
      ok.description = AUDIO_RESPONSE;
      ok.content = Object.fromEntries(AUDIO_TYPES.map((t) => [t, { schema: { type: 'string', format: 'binary' } }]));
    }
  }
  return doc;
}

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
          bearer: { type: 'http', scheme: 'bearer', description: 'a session id, or an API key (`pvx_…`)' },
          xiApiKey: { type: 'apiKey', in: 'header', name: 'xi-api-key', description: 'an API key (`pvx_…`)' },
        },
      },
      security: [{ session: [] }, { cookie: [] }],
    },
    transform: jsonSchemaTransform,
    transformObject: jsonSchemaTransformObject,
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () =>
    audioResponses(structuredClone(app.swagger()) as Record<string, any>),
  );
  await app.register(scalar, { routePrefix: '/reference', configuration: { url: '/openapi.json', withDefaultFonts: false } });
}
