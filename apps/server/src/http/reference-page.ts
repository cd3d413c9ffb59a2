/**
 * The interactive API reference at /reference: Scalar's page over /openapi.json, in the request's language.
 */
import type { FastifyInstance } from 'fastify';
import type { MessageLocale } from '@polyvox/contracts';
import { requestLocale } from './locale.js';
import { defaultAuth } from './auth.js';

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
  // The credential the page offers first: a Bearer API key, what a program calling the API uses.
  authentication: { preferredSecurityScheme: 'bearer' },
} as const;

/**
 * Scalar's built-in pack for each language of the console. It ships English and Simplified Chinese among others but
 * no Traditional Chinese, so a zh-TW reader gets Scalar's few words (search, section names) in Simplified Chinese; the
 * title, description and document are the server's own and in Traditional Chinese.
 */
export const REFERENCE_UI_LOCALE: Record<MessageLocale, string> = { en: 'en', 'zh-CN': 'zh-CN', 'zh-TW': 'zh-CN' };

/** Registers /reference, its redirect and Scalar's script; `titles` are the page's title in each language. */
export async function registerReferencePage(app: FastifyInstance, titles: Record<MessageLocale, string>): Promise<void> {
  // Scalar (its page and its 4 MB script) loads on the first visit to /reference, in a Fastify instance of its own
  // that nothing else reaches: a server that never shows the reference never holds it. Its answers are sent through
  // these routes, so the security headers (the inline script's hash) and compression apply to what is sent.
  let reference: Promise<FastifyInstance> | null = null;
  const scalarApp = () =>
    (reference ??= (async () => {
      const [{ default: Fastify }, { default: scalar }] = await Promise.all([
        import('fastify'),
        import('@scalar/fastify-api-reference'),
      ]);
      const own = Fastify({ logger: false });
      await own.register(scalar, {
        routePrefix: '/reference',
        configuration: { url: '/openapi.json', pageTitle: titles.en, ...REFERENCE_OPTIONS },
      });
      await own.ready();
      return own;
    })().catch((err: unknown) => {
      reference = null;
      throw err;
    }));
  // The page Scalar renders, once, in English; each language's copy names its own title and document.
  let base: Promise<string> | null = null;
  let script: Promise<string> | null = null;
  const pages = new Map<MessageLocale, string>();
  const page = async (locale: MessageLocale) => {
    base ??= scalarApp().then(async (own) => (await own.inject({ url: '/reference/' })).payload);
    const html = await base.catch((err: unknown) => {
      base = null;
      throw err;
    });
    let localized = pages.get(locale);
    if (!localized) {
      localized = html
        // No icon of its own: without this line the browser asks for /favicon.ico and logs its 404.
        .replace(/<title>[^<]*<\/title>/, `<title>${titles[locale]}</title><link rel="icon" href="data:,">`)
        .replace(/<html([^>]*)>/, (_m, attrs: string) => `<html${attrs.replace(/\slang="[^"]*"/, '')} lang="${locale}">`)
        .replaceAll('"/openapi.json"', JSON.stringify(`/openapi.json?lang=${locale}`))
        .replace(/"locale":\s*"en"/, `"locale": ${JSON.stringify(REFERENCE_UI_LOCALE[locale])}`);
      pages.set(locale, localized);
    }
    return localized;
  };
  // Scalar's routes (the page and its script) are public and left out of the document.
  await app.register(async (scope) => {
    defaultAuth(scope, 'public');
    const hidden = { schema: { hide: true } };
    scope.get('/reference', hidden, async (request, reply) => reply.redirect(`${request.url.split('?')[0]}/`, 301));
    scope.get('/reference/', hidden, async (request, reply) =>
      reply.header('content-type', 'text/html; charset=utf-8').send(await page(requestLocale(request))),
    );
    scope.get('/reference/js/scalar.js', hidden, async (_request, reply) => {
      script ??= scalarApp().then(async (own) => (await own.inject({ url: '/reference/js/scalar.js' })).payload);
      const js = await script.catch((err: unknown) => {
        script = null;
        throw err;
      });
      return reply.header('content-type', 'application/javascript; charset=utf-8').send(js);
    });
  });
}
