import type { FastifyRequest } from 'fastify';
import { settingsOf, type HistoryCapture, type HistoryEntry } from '../history/types.js';
import type { Charge, Prepared } from './types.js';

/** The route a request came by, as the history names it: `POST /v1/text-to-speech/{voice_id}/stream`. */
export function routeOf(request: FastifyRequest): string {
  const url = request.routeOptions.url ?? request.url.split('?')[0] ?? '';
  return `${request.method} ${url.replace(/:(\w+)/g, '{$1}')}`;
}

/** The format a request names (ElevenLabs' `output_format` in its query or body, OpenAI's `response_format`). */
function formatAsked(request: FastifyRequest): string | undefined {
  for (const source of [request.query, request.body] as Record<string, unknown>[])
    for (const key of ['output_format', 'response_format'])
      if (source && typeof source[key] === 'string') return source[key] as string;
  return undefined;
}

/** What a speech request's history item says of it: who paid, with which voice, settings and price. */
export function historyEntryOf(
  request: FastifyRequest,
  prepared: Prepared,
  charge: Charge,
  extra: { holdId?: string | null; text?: string; dialogue?: HistoryEntry['dialogue'] } = {},
): HistoryEntry {
  const body = (request.body ?? {}) as Record<string, unknown>;
  const model = typeof body.model_id === 'string' ? body.model_id : typeof body.model === 'string' ? body.model : null;
  return {
    accountId: charge.accountId,
    apiKeyId: charge.apiKeyId ?? null,
    requestId: request.id,
    holdId: extra.holdId ?? null,
    route: routeOf(request),
    text: extra.text ?? prepared.request.text,
    voiceId: extra.dialogue ? null : (prepared.voiceId ?? prepared.voice.id),
    voiceName: extra.dialogue ? null : prepared.voice.name,
    voiceType: extra.dialogue ? null : prepared.origin.voiceType,
    modelId: model ?? prepared.voice.model,
    settings: settingsOf(body),
    ...(extra.dialogue ? { dialogue: extra.dialogue } : {}),
    outputFormat: formatAsked(request) ?? prepared.request.format ?? 'mp3',
    contentType: prepared.contentType,
    characters: prepared.characters,
    credits: prepared.credits,
  };
}

/**
 * The chunks as they leave, each written to the capture too; the item is recorded once the stream ended whole (and so
 * was paid for), dropped otherwise (a client that left, a failure: it was charged nothing, and nothing is kept).
 */
export async function* capturedChunks(
  chunks: AsyncGenerator<Buffer, boolean>,
  capture: HistoryCapture | undefined,
  /** The hold, when the stream's own generator does not say (a dialogue's). */
  holdOf?: () => string | null | undefined,
): AsyncGenerator<Buffer, boolean> {
  if (!capture) return yield* chunks;
  let delivered = false;
  try {
    for (;;) {
      const next = await chunks.next();
      if (next.done) {
        delivered = next.value === true;
        return next.value;
      }
      await capture.add(next.value);
      yield next.value;
    }
  } finally {
    await chunks.return(false).catch(() => false);
    const held = holdOf?.();
    if (held) capture.held(held);
    await capture.finish(delivered);
  }
}
