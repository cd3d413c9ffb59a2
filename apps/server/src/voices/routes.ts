import fs from 'node:fs/promises';
import path from 'node:path';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  ErrorBody,
  LIMITS,
  RandomTextResponse,
  TtsConfigResponse,
  VoiceListQuery,
  VoiceListResponse,
  VoiceSchema,
  type Voice,
} from '@polyvox/contracts';
import type { VoicesService } from './service.js';
import type { CreditsService } from '../credits/service.js';
import type { PlanPrivileges } from '../orders/privileges.js';
import { AppError } from '../platform/errors.js';
import { serverRoot } from '../platform/paths.js';
import { coefficientFor } from '../credits/credits-config.js';
import { randomTextLanguage, randomTextTable, type RandomText } from './random-text.js';
import { localizeVoice, modelDescription } from './display-texts.js';
import { requestLocale } from '../http/locale.js';
import { requestedRange, sendStored } from '../http/stored-reply.js';
import type { ByteRange, StoredStream } from '../platform/storage.js';
import { sessionOf } from '../http/auth.js';
import { AVATAR_URL, licenceFields } from './official.js';
import { isNeural } from '@polyvox/speech';

const contentDir = path.join(serverRoot, 'content');
const GENDER_ORDER = ['male', 'female', 'neutral'];

export interface VoiceRoutesDeps {
  voices: VoicesService;
  credits: Pick<CreditsService, 'config'>;
  plans: Pick<PlanPrivileges, 'free' | 'maxTextLength'>;
  design: { ownVoices: OwnVoiceReader };
  /** The operator's explicit AI label, which the console names beside its downloads. */
  config: { AI_LABEL_EXPLICIT: 'off' | 'rhythm' | 'speech'; AI_LABEL_POSITION: 'start' | 'end' };
}

/** The caller's own voices as these routes read them; the design module's own-voices service is one. */
export interface OwnVoiceReader {
  get(accountId: string, id: string): Promise<Voice>;
  previewAudio(accountId: string, id: string, range?: ByteRange): Promise<StoredStream>;
}

export function voiceRoutes(deps: VoiceRoutesDeps): FastifyPluginAsyncZod {
  let randomTexts: Promise<Map<string, RandomText[]>> | null = null;

  return async (app) => {
    app.get(
      '/tts/config',
      {
        config: { auth: 'optional-session' },
        schema: {
          tags: ['voices'],
          summary: "Models, their languages and genders, and the limits (`max_text_length` is the caller's plan's)",
          security: [{}, { session: [] }, { cookie: [] }],
          response: { 200: TtsConfigResponse },
        },
      },
      async (request) => {
        const locale = requestLocale(request);
        const session = request.auth.session;
        const maxTextLength = session ? await deps.plans.maxTextLength(session.accountId) : deps.plans.free.max_text_length;
        const { models, voices } = await deps.voices.load();
        return {
          models: models.map((m) => {
            const own = voices.filter((v) => v.model === m.id);
            const first = own[0];
            return {
              model: m.id,
              model_name: m.name,
              type: ['tts', ...(m.type === 'standard' ? [] : [m.type])],
              url: `/voice?model=${encodeURIComponent(m.id)}`,
              icon: '/assets/model.svg',
              description: modelDescription(m, locale),
              languages: m.languages,
              sexs: [...m.genders]
                .sort((a, b) => GENDER_ORDER.indexOf(a) - GENDER_ORDER.indexOf(b))
                .map((sex) => ({ sex, icon: AVATAR_URL(sex) })),
              voice_count: own.length,
              credits_per_character: coefficientFor(deps.credits.config, m.id, first?.engine ?? m.engine),
              ...(m.referenceText ? { reference_text: m.referenceText } : {}),
              neural: isNeural(m.quality),
              ...licenceFields(m),
            };
          }),
          limits: {
            max_text_length: maxTextLength,
            mix_max: LIMITS.mixMax,
            preview_versions: LIMITS.previewVersions,
            job_threshold: LIMITS.jobThreshold,
          },
          activation_fees: { ...deps.credits.config.activation_fees },
          ai_label_explicit: deps.config.AI_LABEL_EXPLICIT,
          ai_label_position: deps.config.AI_LABEL_POSITION,
        };
      },
    );

    app.get(
      '/voice',
      {
        config: { auth: 'optional-caller' },
        schema: {
          tags: ['voices'],
          summary: "The voice library (`source=official`) or the account's own voices (`source=mine`); with `id`, one voice",
          security: [{}, { session: [] }, { bearer: [] }, { xiApiKey: [] }],
          querystring: VoiceListQuery,
          response: {
            200: z.union([VoiceListResponse, VoiceSchema]),
            400: ErrorBody,
            401: ErrorBody,
            404: ErrorBody,
            429: ErrorBody,
          },
        },
      },
      async (request) => {
        const q = request.query;
        const locale = requestLocale(request);
        if (q.id) {
          if (await deps.voices.isOfficial(q.id)) {
            const found = await deps.voices.get(q.id);
            return localizeVoice(found.voice, found.info, locale);
          }
          // Not official: one of the caller's own voices, or not found (another account's answers the same).
          const session = request.auth.session;
          if (!session) throw new AppError('NOT_FOUND');
          return deps.design.ownVoices.get(session.accountId, q.id);
        }
        if (q.source === 'mine') {
          const session = sessionOf(request);
          return deps.voices.list(q, locale, session.accountId);
        }
        return deps.voices.list(q, locale);
      },
    );

    app.get(
      '/voice/preview/:file',
      {
        config: { auth: 'optional-session' },
        schema: {
          tags: ['voices'],
          summary: "A library voice's preview (mp3)",
          params: z.object({ file: z.string().regex(/^voice_[^/]+\.mp3$/) }),
        },
      },
      async (request, reply) => {
        const id = request.params.file.replace(/\.mp3$/, '');
        if (!(await deps.voices.isOfficial(id))) {
          // An own voice's preview is its owner's alone.
          const session = request.auth.session;
          if (!session) throw new AppError('NOT_FOUND');
          const audio = await deps.design.ownVoices.previewAudio(session.accountId, id, requestedRange(request));
          return sendStored(reply, audio, { contentType: 'audio/mpeg', cacheControl: 'private, no-cache' });
        }
        const audio = await deps.voices.preview(id, requestedRange(request));
        return sendStored(reply, audio, { contentType: 'audio/mpeg', cacheControl: 'public, max-age=86400' });
      },
    );

    app.get(
      '/api/random/text',
      {
        config: { auth: 'public' },
        schema: {
          tags: ['voices'],
          summary: 'A random voice name, voice description and sample text for a language',
          querystring: z
            .object({
              lang: z
                .string()
                .max(35)
                .regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/, 'must be a language tag such as en or zh-CN')
                .optional(),
            })
            .passthrough(),
          response: { 200: RandomTextResponse, 400: ErrorBody },
        },
      },
      async (request) => {
        randomTexts ??= fs
          .readFile(path.join(contentDir, 'random-texts.json'), 'utf8')
          .then((t) => randomTextTable(JSON.parse(t) as Record<string, RandomText[]>));
        const all = await randomTexts;
        const key = randomTextLanguage(all, request.query.lang);
        const list = all.get(key)!;
        const pick = list[Math.floor(Math.random() * list.length)]!;
        return { ...pick, lang: key };
      },
    );

    app.get('/assets/model.svg', { config: { auth: 'public' }, schema: { hide: true } }, async (_request, reply) =>
      reply
        .header('content-type', 'image/svg+xml')
        .header('cache-control', 'public, max-age=86400')
        .send(await fs.readFile(path.join(contentDir, 'model.svg'))),
    );

    app.get(
      '/assets/avatars/:file',
      {
        config: { auth: 'public' },
        schema: { hide: true, params: z.object({ file: z.enum(['male.svg', 'female.svg', 'neutral.svg']) }) },
      },
      async (request, reply) => {
        const svg = await fs.readFile(path.join(contentDir, 'avatars', request.params.file)).catch(() => null);
        if (!svg) throw new AppError('NOT_FOUND');
        return reply.header('content-type', 'image/svg+xml').header('cache-control', 'public, max-age=86400').send(svg);
      },
    );
  };
}
