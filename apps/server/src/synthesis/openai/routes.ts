import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { OpenAISpeechRequest } from '@polyvox/contracts';
import { assertVoiceAllowed, callerOf } from '../../http/auth.js';
import { AppError } from '../../platform/errors.js';
import { pricedCharacters } from '../input.js';
import {
  AUDIO_BODY,
  chargeOf,
  KEY_OR_SESSION,
  SPEECH_ERRORS as errors,
  speaker,
  type SpeechRoutesDeps,
} from '../route-helpers.js';

const sseEvent = (event: object): Buffer => Buffer.from(`data: ${JSON.stringify(event)}\n\n`);

/**
 * OpenAI's speech events: each chunk of the (labelled) audio as a `speech.audio.delta` with its bytes in base64, then,
 * once the whole audio is out, `speech.audio.done` with the usage. Polyvox bills characters: they are its input
 * tokens (audio is not counted in tokens), and the credits charged come beside them.
 */
export async function* speechEvents(
  chunks: AsyncGenerator<Buffer, boolean>,
  usage: { characters: number; credits: number },
): AsyncGenerator<Buffer, boolean> {
  try {
    for (;;) {
      const next = await chunks.next();
      if (next.done) {
        if (next.value !== true) return false;
        yield sseEvent({
          type: 'speech.audio.done',
          usage: { input_tokens: usage.characters, output_tokens: 0, total_tokens: usage.characters, ...usage },
        });
        return true;
      }
      yield sseEvent({ type: 'speech.audio.delta', audio: next.value.toString('base64') });
    }
  } finally {
    await chunks.return(false);
  }
}

/** OpenAI's dialect: `POST /v1/audio/speech`, streamed, or as OpenAI's server-sent speech events. */
export function openAiRoutes(deps: SpeechRoutesDeps): FastifyPluginAsyncZod {
  const speak = speaker(deps);
  return async (app) => {
    app.post(
      '/v1/audio/speech',
      {
        config: { auth: 'caller' },
        schema: {
          tags: ['synthesis'],
          summary: "OpenAI-compatible speech: OpenAI's voice names map to default voices; our voice ids work too",
          description: [
            'The audio streams as it is made. With `stream_format: "sse"` the answer is `text/event-stream`: each piece of the',
            'audio (in `response_format`, joined they make one labelled file) as `data: {"type":"speech.audio.delta","audio":"<base64>"}`,',
            'then `data: {"type":"speech.audio.done","usage":{"input_tokens","output_tokens","total_tokens","characters","credits"}}`',
            '(Polyvox bills characters: they are the input tokens; audio is not counted in tokens).',
            '`instructions` is read for delivery: pace (slow, fast), pitch (high, low, deep), range (calm, monotone, sad; energetic,',
            'excited, cheerful, expressive), breath (breathy, whispering, raspy) and tone (warm, soft; bright, clear), in English or',
            'Chinese; words about who speaks (gender, age, accent) do not change the voice the request names. `speed` is',
            "OpenAI's 0.25–4 and spoken so (4: a quarter of the time; word timings follow): each engine goes as far as it sounds",
            'natural natively and the rest is time-stretched without changing the pitch. The price does not depend on it.',
          ].join(' '),
          security: KEY_OR_SESSION,
          body: OpenAISpeechRequest,
          response: { 200: AUDIO_BODY, ...errors },
        },
      },
      async (request, reply) => {
        const caller = callerOf(request);
        const body = request.body;
        const requested = typeof body.voice === 'string' ? body.voice : body.voice.id;
        const voiceId = (await deps.synthesis.openAiVoice(requested)) ?? requested;
        if (!voiceId.startsWith('voice_')) throw new AppError('NOT_FOUND');
        assertVoiceAllowed(caller, voiceId);
        await deps.plans.assertTextLength(caller.accountId, body.input, pricedCharacters(body.input));
        const prepared = await deps.synthesis.prepare({
          text: body.input,
          voiceId,
          accountId: caller.accountId,
          route: 'openai',
          format: body.response_format,
          speed: body.speed,
          pitch: 0,
          ...(body.ai_label ? { aiLabel: body.ai_label } : {}),
          ...(body.instructions ? { instructions: body.instructions } : {}),
          ...(body.pronunciation_dictionary_locators ? { pronunciationLocators: body.pronunciation_dictionary_locators } : {}),
        });
        const charge = { ...chargeOf(caller, 'api'), recordType: 'api' };
        if (body.stream_format !== 'sse') return speak(request, reply, prepared, charge, { stream: true });
        const usage = { characters: prepared.characters, credits: prepared.credits };
        return speak(request, reply, prepared, charge, {
          stream: true,
          events: { contentType: 'text/event-stream', wrap: (chunks) => speechEvents(chunks, usage) },
        });
      },
    );
  };
}
