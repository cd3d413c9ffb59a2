import type { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  ErrorBody,
  HistoryDeleteResponse,
  HistoryDownloadBody,
  HistoryItem,
  HistoryListQuery,
  HistoryListResponse,
} from '@polyvox/contracts';
import { callerOf } from '../http/auth.js';
import { addElevenLabsErrorDetail } from '../http/error-detail.js';
import { AUDIO_RESPONSE } from '../http/openapi.js';
import { requestedRange, sendStored } from '../http/stored-reply.js';
import type { HistoryService } from './service.js';

export interface HistoryRoutesDeps {
  history: Pick<HistoryService, 'list' | 'item' | 'audio' | 'download' | 'delete'>;
}

/** A session (the console) or an API key as ElevenLabs' SDK sends it. */
const security: { [name: string]: string[] }[] = [{ session: [] }, { cookie: [] }, { xiApiKey: [] }, { bearer: [] }];
const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody };
const Params = z.object({ history_item_id: z.string().min(1).max(128) });
const AUDIO = z.string().meta({ description: AUDIO_RESPONSE });
/** Read back from the history: nothing is charged, and the answer may be kept by the browser a while. */
const CACHE = 'private, max-age=300';

/** Several items' audio, as one zip made while it is sent. */
function sendZip(reply: FastifyReply, zip: Readable): FastifyReply {
  return reply
    .header('content-type', 'application/zip')
    .header('content-disposition', 'attachment; filename="history.zip"')
    .header('cache-control', 'no-store')
    .send(zip);
}

/**
 * ElevenLabs' history routes (`/v1/history`) in its shapes: the caller's past generations, kept for the operator's
 * retention. Another account's item is 404, as a missing one; reading or downloading audio again charges nothing.
 */
export function historyRoutes(deps: HistoryRoutesDeps): FastifyPluginAsyncZod {
  const { history } = deps;
  return async (app) => {
    addElevenLabsErrorDetail(app);

    app.get(
      '/v1/history',
      {
        config: { auth: 'caller' },
        schema: {
          tags: ['history'],
          summary: 'Your generations, newest first, in pages (`start_after_history_item_id`), filtered and searched',
          description:
            '`search` finds a term in the text or the voice name, ignoring case. Items are kept `HISTORY_RETENTION_DAYS` ' +
            '(the operator sets it; 30 by default). `character_count_change_from`/`_to` are the balance before and after ' +
            'the charge; `credits` is the price.',
          querystring: HistoryListQuery,
          security,
          response: { 200: HistoryListResponse, ...errors, 422: ErrorBody },
        },
      },
      async (request) => history.list(callerOf(request).accountId, request.query),
    );

    app.get(
      '/v1/history/:history_item_id',
      {
        config: { auth: 'caller' },
        schema: {
          tags: ['history'],
          summary: 'One generation: its text, voice, settings, route, key, price and time',
          params: Params,
          security,
          response: { 200: HistoryItem, ...errors },
        },
      },
      async (request) => history.item(callerOf(request).accountId, request.params.history_item_id),
    );

    app.get(
      '/v1/history/:history_item_id/audio',
      {
        config: { auth: 'caller' },
        schema: {
          tags: ['history'],
          summary: 'Its audio as it was delivered (labelled and marked), never charged again; byte ranges served',
          params: Params,
          security,
          response: { 200: AUDIO, 206: AUDIO, ...errors },
        },
      },
      async (request, reply) => {
        const audio = await history.audio(callerOf(request).accountId, request.params.history_item_id, requestedRange(request));
        void reply.header('content-disposition', `inline; filename="${audio.fileName}"`);
        return sendStored(reply, audio.file, { contentType: audio.contentType, cacheControl: CACHE });
      },
    );

    app.delete(
      '/v1/history/:history_item_id',
      {
        config: { auth: 'caller' },
        schema: {
          tags: ['history'],
          summary: 'Delete a generation and its audio file',
          params: Params,
          security,
          response: { 200: HistoryDeleteResponse, ...errors },
        },
      },
      async (request) => {
        await history.delete(callerOf(request).accountId, request.params.history_item_id);
        return { status: 'ok' as const };
      },
    );

    app.post(
      '/v1/history/download',
      {
        config: { auth: 'caller' },
        schema: {
          tags: ['history'],
          summary: 'Download generations: one as its audio file, several as a zip (files named by their ids)',
          body: HistoryDownloadBody,
          security,
          response: { 200: AUDIO, ...errors },
        },
      },
      async (request, reply) => {
        const { history_item_ids: ids, output_format: format } = request.body;
        const answer = await history.download(callerOf(request).accountId, ids, format);
        if ('zip' in answer) return sendZip(reply, answer.zip);
        void reply.header('content-disposition', `attachment; filename="${answer.fileName}"`);
        return sendStored(reply, answer.file, { contentType: answer.contentType, cacheControl: 'no-store' });
      },
    );
  };
}
