import { Readable } from 'node:stream';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { registerErrorHandling } from '../../src/http/error-handler.js';
import { AppError } from '../../src/platform/errors.js';

describe('error handler after a route chose an audio type', () => {
  it('answers the error as JSON with its own status, not a 500 about the payload type', async () => {
    const app = Fastify({ logger: false });
    registerErrorHandling(app);
    // A stream that fails before its first byte: its audio headers are already on the raw response.
    app.post('/tts', async (_request, reply) =>
      reply.header('content-type', 'audio/mpeg').send(
        new Readable({
          read() {
            this.destroy(new AppError('INSUFFICIENT_BALANCE'));
          },
        }),
      ),
    );
    app.post('/tts-ok', async (_request, reply) => reply.header('content-type', 'audio/mpeg').send(Buffer.from('ID3')));
    const failed = await app.inject({ method: 'POST', url: '/tts' });
    expect(failed.statusCode).toBe(402);
    expect(failed.headers['content-type']).toMatch(/^application\/json/);
    expect(failed.json().error.code).toBe('INSUFFICIENT_BALANCE');
    const ok = await app.inject({ method: 'POST', url: '/tts-ok' });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['content-type']).toBe('audio/mpeg');
    await app.close();
  });
});
