import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import scalar from '@scalar/fastify-api-reference';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import type { Config } from '../platform/config.js';
import type { MessageLocale } from '@polyvox/contracts';
import { requestLocale } from './locale.js';
import { defaultAuth } from './auth.js';

/** The texts of the reference the server writes itself, in each language of the console. */
const REFERENCE_TEXTS: Record<MessageLocale, { title: string; description: string }> = {
  en: {
    title: 'Polyvox API',
    description:
      'Text to speech and voice cloning over several engines. Errors are `{"error": {"code", "message", "request_id"}}`; messages follow `lang` or `Accept-Language` (en, zh-CN, zh-TW).',
  },
  'zh-CN': {
    title: 'Polyvox 接口',
    description:
      '基于多种引擎的文本转语音与声音克隆。错误格式为 `{"error": {"code", "message", "request_id"}}`；消息语言取自 `lang` 或 `Accept-Language`（en、zh-CN、zh-TW）。',
  },
  'zh-TW': {
    title: 'Polyvox 介面',
    description:
      '基於多種引擎的文字轉語音與聲音複製。錯誤格式為 `{"error": {"code", "message", "request_id"}}`；訊息語言取自 `lang` 或 `Accept-Language`（en、zh-CN、zh-TW）。',
  },
};

/**
 * Scalar's options that keep the reference page to this server: no "Ask AI" agent (it offers to upload the
 * document to Scalar's servers), no MCP generator, no developer toolbar (Deploy, Share), no client button, no
 * telemetry, no fonts from Scalar's CDN. The browser test asserts the page asks no other host for anything.
 */
export const REFERENCE_OPTIONS = {
  withDefaultFonts: false,
  hideClientButton: true,
  showDeveloperTools: 'never',
  showToolbar: 'never',
  telemetry: false,
  agent: { disabled: true },
  mcp: { disabled: true },
  // Scalar's own words (search, sections, buttons) from its built-in packs; each language's copy names its own.
  localization: { locale: 'en' },
} as const;

/**
 * Scalar's built-in pack for each language of the console. It ships English and Simplified Chinese among others but
 * no Traditional Chinese, so a zh-TW reader gets Scalar's few words (search, section names) in Simplified Chinese; the
 * title, description and document are the server's own and in Traditional Chinese.
 */
export const REFERENCE_UI_LOCALE: Record<MessageLocale, string> = { en: 'en', 'zh-CN': 'zh-CN', 'zh-TW': 'zh-CN' };

const BASE_MARK = 'x-polyvox-reference-base';

export const AUDIO_RESPONSE = 'Audio bytes in the requested format; `x-credits-charged` says what they cost.';
const AUDIO_TYPES = ['audio/mpeg', 'audio/wav', 'audio/ogg', 'audio/pcm'];

/** Marks a response schema whose objects are sent as lines of JSON (`application/x-ndjson`), one per line. */
export const NDJSON_MARK = 'x-ndjson';

/**
 * Responses marked as audio are bytes: document them under the audio media types, not JSON. Responses marked as
 * lines of JSON are documented as `application/x-ndjson`, with the schema of one line.
 */
function audioResponses(doc: Record<string, any>): Record<string, any> {
  for (const operations of Object.values<Record<string, any>>(doc.paths ?? {})) {
    for (const operation of Object.values<Record<string, any>>(operations)) {
      const ok = operation?.responses?.['200'];
      const schema = ok?.content?.['application/json']?.schema;
      if (schema?.[NDJSON_MARK]) {
        const { [NDJSON_MARK]: _mark, ...line } = schema;
        ok.content = { 'application/x-ndjson': { schema: line } };
        continue;
      }
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
        title: REFERENCE_TEXTS.en.title,
        version: '0.1.0',
        description: REFERENCE_TEXTS.en.description,
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
  // `?lang=` (or Accept-Language) picks the language of the texts the server writes (title, description).
  app.get('/openapi.json', { config: { auth: 'public' }, schema: { hide: true } }, async (request) => {
    const doc = audioResponses(structuredClone(app.swagger()) as Record<string, any>);
    const texts = REFERENCE_TEXTS[requestLocale(request)];
    doc.info = { ...doc.info, title: texts.title, description: texts.description };
    return doc;
  });
  // The page Scalar renders, once, in English; each language's copy names its own title and document. Sent from
  // preHandler, so the security headers (the inline script's hash) and compression apply to the copy sent.
  let base: Promise<string> | null = null;
  const pages = new Map<MessageLocale, string>();
  const page = async (locale: MessageLocale) => {
    base ??= app.inject({ url: '/reference/', headers: { [BASE_MARK]: '1' } }).then((r) => r.payload);
    const html = await base;
    let localized = pages.get(locale);
    if (!localized) {
      localized = html
        // No icon of its own: without this line the browser asks for /favicon.ico and logs its 404.
        .replace(/<title>[^<]*<\/title>/, `<title>${REFERENCE_TEXTS[locale].title}</title><link rel="icon" href="data:,">`)
        .replace(/<html([^>]*)>/, (_m, attrs: string) => `<html${attrs.replace(/\slang="[^"]*"/, '')} lang="${locale}">`)
        .replaceAll('"/openapi.json"', JSON.stringify(`/openapi.json?lang=${locale}`))
        .replace(/"locale":\s*"en"/, `"locale": ${JSON.stringify(REFERENCE_UI_LOCALE[locale])}`);
      pages.set(locale, localized);
    }
    return localized;
  };
  // Scalar's routes (the page and its script) are public.
  await app.register(async (scope) => {
    defaultAuth(scope, 'public');
    await scope.register(scalar, {
      routePrefix: '/reference',
      configuration: { url: '/openapi.json', pageTitle: REFERENCE_TEXTS.en.title, ...REFERENCE_OPTIONS },
      hooks: {
        preHandler: async (request, reply) => {
          if (request.routeOptions.url !== '/reference/' || request.headers[BASE_MARK]) return;
          if (!request.url.split('?')[0]!.endsWith('/')) return;
          return reply.header('content-type', 'text/html; charset=utf-8').send(await page(requestLocale(request)));
        },
      },
    });
  });
}
