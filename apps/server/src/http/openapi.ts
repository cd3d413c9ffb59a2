import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import type { Config } from '../platform/config.js';
import type { MessageLocale } from '@polyvox/contracts';
import { requestLocale } from './locale.js';
import type { AuthRule } from './auth.js';
import { registerReferencePage } from './reference-page.js';

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

type Texts = Record<MessageLocale, string>;

/**
 * The reference's sections, in the order a reader meets them: the public speech API first (what an API key is
 * for), then voices and what shapes speech, then the account's own business, then the console's internals. Each
 * section is named and described in the reader's language; the English name is the tag the routes declare.
 */
const TAGS: ReadonlyArray<{ tag: string; name: Texts; description: Texts }> = [
  {
    tag: 'synthesis',
    name: { en: 'synthesis', 'zh-CN': '语音合成', 'zh-TW': '語音合成' },
    description: {
      en: 'Text to speech: OpenAI-compatible `/v1/audio/speech`, `/tts`, jobs, timings and subtitles. Call it with an API key.',
      'zh-CN': '文本转语音：兼容 OpenAI 的 `/v1/audio/speech`、`/tts`、任务、时间戳与字幕。使用 API 密钥调用。',
      'zh-TW': '文字轉語音：相容 OpenAI 的 `/v1/audio/speech`、`/tts`、任務、時間戳與字幕。使用 API 金鑰呼叫。',
    },
  },
  {
    tag: 'elevenlabs',
    name: { en: 'elevenlabs', 'zh-CN': 'ElevenLabs 兼容接口', 'zh-TW': 'ElevenLabs 相容介面' },
    description: {
      en: "ElevenLabs' shapes (speech, dialogue, streaming, WebSocket, voices), so its official SDK works unchanged.",
      'zh-CN': 'ElevenLabs 的请求格式（合成、多人对话、流式、WebSocket、声音），官方 SDK 无需修改即可使用。',
      'zh-TW': 'ElevenLabs 的請求格式（合成、多人對話、串流、WebSocket、聲音），官方 SDK 無需修改即可使用。',
    },
  },
  {
    tag: 'voices',
    name: { en: 'voices', 'zh-CN': '声音', 'zh-TW': '聲音' },
    description: {
      en: 'The voice library and your own voices.',
      'zh-CN': '声音库与你自己的声音。',
      'zh-TW': '聲音庫與你自己的聲音。',
    },
  },
  {
    tag: 'pronunciation',
    name: { en: 'pronunciation', 'zh-CN': '发音词典', 'zh-TW': '發音詞典' },
    description: {
      en: 'Pronunciation dictionaries (PLS) applied to speech.',
      'zh-CN': '应用于合成的发音词典（PLS）。',
      'zh-TW': '套用於合成的發音詞典（PLS）。',
    },
  },
  {
    tag: 'studio',
    name: { en: 'studio', 'zh-CN': '有声书工作室', 'zh-TW': '有聲書工作室' },
    description: {
      en: "Studio projects in ElevenLabs' shapes: a book or a script made from a document, its chapters and paragraphs, a voice for each speaker.",
      'zh-CN': 'ElevenLabs 格式的工作室项目：由文档生成的书或剧本，包含章节与段落，每个说话人对应一个声音。',
      'zh-TW': 'ElevenLabs 格式的工作室專案：由文件產生的書或劇本，包含章節與段落，每位說話者對應一個聲音。',
    },
  },
  {
    tag: 'history',
    name: { en: 'history', 'zh-CN': '生成历史', 'zh-TW': '生成歷史' },
    description: {
      en: "Your past generations in ElevenLabs' shapes: listed, searched, played and downloaded again without a charge, deleted.",
      'zh-CN': 'ElevenLabs 格式的生成历史：列出、搜索、再次播放和下载（不再扣费），以及删除。',
      'zh-TW': 'ElevenLabs 格式的生成歷史：列出、搜尋、再次播放和下載（不再扣點），以及刪除。',
    },
  },
  {
    tag: 'voice design',
    name: { en: 'voice design', 'zh-CN': '声音设计', 'zh-TW': '聲音設計' },
    description: {
      en: 'Voices from a description, a recording or a mix, previewed before they are saved.',
      'zh-CN': '根据描述、录音或混合生成声音，保存前可试听。',
      'zh-TW': '根據描述、錄音或混合產生聲音，儲存前可試聽。',
    },
  },
  {
    tag: 'provenance',
    name: { en: 'provenance', 'zh-CN': '内容溯源', 'zh-TW': '內容溯源' },
    description: {
      en: 'Whether a file was made here: watermark, AIGC label and C2PA manifest.',
      'zh-CN': '检查文件是否由本服务生成：水印、AIGC 标识与 C2PA 清单。',
      'zh-TW': '檢查檔案是否由本服務產生：浮水印、AIGC 標識與 C2PA 清單。',
    },
  },
  {
    tag: 'reports',
    name: { en: 'reports', 'zh-CN': '举报', 'zh-TW': '檢舉' },
    description: {
      en: 'Report misuse of audio or a voice made here; no sign-in needed.',
      'zh-CN': '举报本服务生成的音频或声音被滥用，无需登录。',
      'zh-TW': '檢舉本服務產生的音訊或聲音遭濫用，無需登入。',
    },
  },
  {
    tag: 'api keys',
    name: { en: 'api keys', 'zh-CN': 'API 密钥', 'zh-TW': 'API 金鑰' },
    description: {
      en: "Create, limit and delete the account's API keys (with a session).",
      'zh-CN': '创建、限额和删除账户的 API 密钥（需登录会话）。',
      'zh-TW': '建立、限額與刪除帳戶的 API 金鑰（需登入工作階段）。',
    },
  },
  {
    tag: 'credits',
    name: { en: 'credits', 'zh-CN': '积分', 'zh-TW': '點數' },
    description: {
      en: "The account's credits, usage records and statistics.",
      'zh-CN': '账户的积分、用量记录与统计。',
      'zh-TW': '帳戶的點數、用量記錄與統計。',
    },
  },
  {
    tag: 'orders',
    name: { en: 'orders', 'zh-CN': '订单', 'zh-TW': '訂單' },
    description: {
      en: 'Plans, credit packs and their orders.',
      'zh-CN': '套餐、积分包及其订单。',
      'zh-TW': '方案、點數包及其訂單。',
    },
  },
  {
    tag: 'payments',
    name: { en: 'payments', 'zh-CN': '支付', 'zh-TW': '付款' },
    description: {
      en: "Payment providers' notifications.",
      'zh-CN': '支付服务商的通知。',
      'zh-TW': '付款服務商的通知。',
    },
  },
  {
    tag: 'operator',
    name: { en: 'operator', 'zh-CN': '运营后台', 'zh-TW': '營運後台' },
    description: {
      en: 'The operator console (`/admin/api/…`): a session whose account holds an operator role and has passed its second factor; any other caller 403 (401 SECOND_FACTOR_REQUIRED before the second factor).',
      'zh-CN':
        '运营后台（`/admin/api/…`）：需持有运营角色且已通过第二重验证的会话；其他调用方返回 403（通过第二重验证前返回 401 SECOND_FACTOR_REQUIRED）。',
      'zh-TW':
        '營運後台（`/admin/api/…`）：需持有營運角色且已通過第二重驗證的工作階段；其他呼叫方回傳 403（通過第二重驗證前回傳 401 SECOND_FACTOR_REQUIRED）。',
    },
  },
  {
    tag: 'accounts',
    name: { en: 'accounts', 'zh-CN': '账户', 'zh-TW': '帳戶' },
    description: {
      en: "The console's account and session.",
      'zh-CN': '控制台的账户与会话。',
      'zh-TW': '主控台的帳戶與工作階段。',
    },
  },
  {
    tag: 'sign-in',
    name: { en: 'sign-in', 'zh-CN': '登录', 'zh-TW': '登入' },
    description: {
      en: "The console's sign-in by mailed code.",
      'zh-CN': '控制台的邮箱验证码登录。',
      'zh-TW': '主控台的電子郵件驗證碼登入。',
    },
  },
  {
    tag: 'documents',
    name: { en: 'documents', 'zh-CN': '文档', 'zh-TW': '文件' },
    description: {
      en: 'Terms, privacy and release notes.',
      'zh-CN': '条款、隐私政策与更新说明。',
      'zh-TW': '條款、隱私權政策與更新說明。',
    },
  },
  {
    tag: 'operations',
    name: { en: 'operations', 'zh-CN': '运维', 'zh-TW': '維運' },
    description: {
      en: 'Health checks and metrics for the operator.',
      'zh-CN': '供运维使用的健康检查与指标。',
      'zh-TW': '供維運使用的健康檢查與指標。',
    },
  },
];

/** How each scheme is described; `bearer` (an API key) comes first: it is what a program calling the API uses. */
const SCHEME_TEXTS: Record<'bearer' | 'xiApiKey' | 'session' | 'cookie', Texts> = {
  bearer: {
    en: "An API key (`pvx_…`) from the console's API keys page, as `Authorization: Bearer <key>`. A session id works here too.",
    'zh-CN': '控制台“API 密钥”页面创建的密钥（`pvx_…`），以 `Authorization: Bearer <密钥>` 发送；也可使用会话 ID。',
    'zh-TW': '主控台「API 金鑰」頁面建立的金鑰（`pvx_…`），以 `Authorization: Bearer <金鑰>` 傳送；也可使用工作階段 ID。',
  },
  xiApiKey: {
    en: "An API key (`pvx_…`) in ElevenLabs' header.",
    'zh-CN': '以 ElevenLabs 的请求头发送的 API 密钥（`pvx_…`）。',
    'zh-TW': '以 ElevenLabs 的請求標頭傳送的 API 金鑰（`pvx_…`）。',
  },
  session: {
    en: "The console's session id (its own pages use it).",
    'zh-CN': '控制台的会话 ID（控制台页面自己使用）。',
    'zh-TW': '主控台的工作階段 ID（主控台頁面自己使用）。',
  },
  cookie: {
    en: "The console's session cookie.",
    'zh-CN': '控制台的会话 Cookie。',
    'zh-TW': '主控台的工作階段 Cookie。',
  },
};

type Security = Array<Record<string, string[]>>;

/** What each route's auth rule accepts, for a route that does not say: a Bearer key first wherever a key works. */
const SECURITY: Record<AuthRule, Security> = {
  public: [],
  'optional-session': [],
  session: [{ session: [] }, { cookie: [] }],
  caller: [{ bearer: [] }, { xiApiKey: [] }, { session: [] }, { cookie: [] }],
  'optional-caller': [{ bearer: [] }, { xiApiKey: [] }, {}],
  bearer: [{ bearer: [] }, { xiApiKey: [] }],
  operator: [{ session: [] }, { cookie: [] }],
  'operator-factor': [{ session: [] }, { cookie: [] }],
};

/** Where a route lists a key beside a session, the key first: the reference offers the first as the default. */
const SCHEME_RANK = ['bearer', 'xiApiKey', 'session', 'cookie'];
const rank = (requirement: Record<string, string[]>) => {
  const name = Object.keys(requirement)[0];
  return name === undefined ? SCHEME_RANK.length : SCHEME_RANK.indexOf(name);
};

/**
 * The document in the reader's language, public API first: sections ordered and named as TAGS says (a tag not
 * listed keeps its name, after them), each operation's security from its route's auth rule where the route names
 * none, an API key before a session, a Bearer key the document's default.
 */
function localizeDocument(doc: Record<string, any>, locale: MessageLocale, rules: ReadonlyMap<string, AuthRule>) {
  const names = new Map(TAGS.map((t) => [t.tag, t.name[locale]]));
  const used = new Set<string>();
  for (const [path, operations] of Object.entries<Record<string, any>>(doc.paths ?? {})) {
    const url = path.replace(/\{([^}]+)\}/g, ':$1');
    for (const [method, operation] of Object.entries<Record<string, any>>(operations)) {
      if (!operation || typeof operation !== 'object' || Array.isArray(operation)) continue;
      const tags: string[] = operation.tags ?? [];
      tags.forEach((t) => used.add(t));
      operation.tags = tags.map((t) => names.get(t) ?? t);
      const rule = rules.get(`${method.toUpperCase()} ${url}`);
      const security: Security | undefined = operation.security ?? (rule ? SECURITY[rule] : undefined);
      if (security) operation.security = [...security].sort((a, b) => rank(a) - rank(b));
    }
  }
  doc.tags = [
    ...TAGS.filter((t) => used.has(t.tag)).map((t) => ({ name: t.name[locale], description: t.description[locale] })),
    ...[...used].filter((t) => !names.has(t)).map((name) => ({ name })),
  ];
  const schemes = doc.components?.securitySchemes ?? {};
  for (const [name, texts] of Object.entries(SCHEME_TEXTS)) if (schemes[name]) schemes[name].description = texts[locale];
  return doc;
}

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
          bearer: { type: 'http', scheme: 'bearer', description: SCHEME_TEXTS.bearer.en },
          xiApiKey: { type: 'apiKey', in: 'header', name: 'xi-api-key', description: SCHEME_TEXTS.xiApiKey.en },
          session: { type: 'apiKey', in: 'header', name: 'x-sid', description: SCHEME_TEXTS.session.en },
          cookie: { type: 'apiKey', in: 'cookie', name: 'sid', description: SCHEME_TEXTS.cookie.en },
        },
      },
      // The default credential: a Bearer API key (a route that takes only a session says so itself).
      security: SECURITY.caller,
    },
    transform: jsonSchemaTransform,
    transformObject: jsonSchemaTransformObject,
  });
  // `?lang=` (or Accept-Language) picks the language of the texts the server writes (title, description).
  app.get('/openapi.json', { config: { auth: 'public' }, schema: { hide: true } }, async (request) => {
    const locale = requestLocale(request);
    const swagger = structuredClone(app.swagger()) as Record<string, any>;
    const doc = localizeDocument(audioResponses(swagger), locale, app.authRules);
    const texts = REFERENCE_TEXTS[locale];
    doc.info = { ...doc.info, title: texts.title, description: texts.description };
    return doc;
  });
  await registerReferencePage(app, {
    en: REFERENCE_TEXTS.en.title,
    'zh-CN': REFERENCE_TEXTS['zh-CN'].title,
    'zh-TW': REFERENCE_TEXTS['zh-TW'].title,
  });
}
