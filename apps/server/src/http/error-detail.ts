import type { FastifyInstance } from 'fastify';

/**
 * ElevenLabs' SDK reads `detail` from an error body: the routes of its shapes (speech, voices, pronunciation
 * dictionaries) add `{detail: {status, message}}` beside the contract's `error`, in the plugin that registers it.
 */
export function addElevenLabsErrorDetail(app: FastifyInstance): void {
  app.addHook('onSend', async (_request, reply, payload) => {
    if (reply.statusCode < 400 || typeof payload !== 'string') return payload;
    try {
      const body = JSON.parse(payload) as { error?: { code: string; message: string } };
      if (!body.error) return payload;
      return JSON.stringify({ ...body, detail: { status: body.error.code.toLowerCase(), message: body.error.message } });
    } catch {
      return payload;
    }
  });
}
