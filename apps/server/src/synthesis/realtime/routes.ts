import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { WebSocket } from 'ws';
import { ErrorBody, errorMessage } from '@polyvox/contracts';
import { admitKey, assertVoiceAllowed, type Caller, type KeyGate } from '../../http/auth.js';
import { requestLocale } from '../../http/locale.js';
import { AppError, isAppError } from '../../platform/errors.js';
import type { PlanPrivileges } from '../../orders/privileges.js';
import type { Provenance } from '../../provenance/service.js';
import type { VoicesService } from '../../voices/service.js';
import { elevenLabsFormat } from '../output/formats.js';
import { DEFAULT_INACTIVITY, RealtimeParams, RealtimeQuery } from './protocol.js';
import { MULTI, PROTOCOL } from './description.js';
import { unread } from './messages.js';
import { RealtimeSession, type RealtimeSocket } from './session.js';
import type { Config } from '../../platform/config.js';
import { chargeOf } from '../route-helpers.js';
import type { SynthesisService } from '../service.js';
import type { AccountSockets } from './account-sockets.js';
import { settingsOf, type HistoryRecorder } from '../../history/types.js';
import { routeOf } from '../history-entry.js';
import { RealtimeHistory } from './history.js';

export interface RealtimeRoutesDeps {
  synthesis: Pick<SynthesisService, 'prepareFor' | 'render' | 'price' | 'rulesOf' | 'track'>;
  provenance: Provenance;
  plans: Pick<PlanPrivileges, 'maxTextLength'>;
  voices: Pick<VoicesService, 'get'>;
  /** For a key sent in the first message (ElevenLabs' `xi_api_key`), admitted as a header's would be. */
  keyGate: KeyGate;
  config: Pick<Config, 'REALTIME_MAX_UNSENT_BYTES' | 'REALTIME_SEND_TIMEOUT_SECONDS'>;
  /** The open sockets by account: a disabled account's are closed (account-sockets.ts). */
  realtimeSockets: AccountSockets;
  /** Where each context's delivered audio is kept (an item per context). */
  history: HistoryRecorder;
}

/** The key a first message carries: ElevenLabs' `xi_api_key`, or `authorization` as a Bearer key. */
function keyInMessage(data: Buffer): string | null {
  let m: unknown;
  try {
    m = JSON.parse(data.toString('utf8'));
  } catch {
    return null;
  }
  if (typeof m !== 'object' || m === null) return null;
  const fields = m as Record<string, unknown>;
  const xi = Object.hasOwn(fields, 'xi_api_key') ? fields.xi_api_key : undefined;
  if (typeof xi === 'string' && xi.trim()) return xi.trim();
  const authz = Object.hasOwn(fields, 'authorization') ? fields.authorization : undefined;
  if (typeof authz === 'string' && authz.startsWith('Bearer ')) return authz.slice(7).trim() || null;
  return null;
}

/** Messages kept while the socket's voice and plan are looked up; one more closes it. */
const MAX_EARLY = 1024;

/** The GET that is not an upgrade: a clear error instead of a 404. */
const notUpgraded = () => new AppError('VALIDATION_FAILED', { field: 'upgrade', rule: 'must be a WebSocket upgrade' });

/** How much a client may leave unread: bytes waiting unsent, and how long one message may wait to be written. */
interface ReadLimits {
  maxUnsentBytes: number;
  sendTimeoutSeconds: number;
}

/**
 * The socket as the session needs it: sends that say when they are written, and a close that always ends it. A client
 * that stops reading fills the connection's buffers: once more than `maxUnsentBytes` wait unsent (ws'
 * `bufferedAmount`), or a message has waited `sendTimeoutSeconds` to be written, sends fail with `unread` and the
 * session closes the socket, so it keeps no hold, key slot or credits for a reader that is not there.
 */
function adapt(socket: WebSocket, limits: ReadLimits): RealtimeSocket {
  return {
    send: (message) =>
      new Promise((resolve, reject) => {
        if (socket.readyState !== socket.OPEN) return reject(new Error('socket closed'));
        if (socket.bufferedAmount > limits.maxUnsentBytes)
          return reject(unread(`must read what it is sent (over ${limits.maxUnsentBytes} bytes wait unread)`));
        let settled = false;
        const timer = setTimeout(() => {
          settled = true;
          reject(unread(`must read what it is sent (nothing read for ${limits.sendTimeoutSeconds} seconds)`));
        }, limits.sendTimeoutSeconds * 1000);
        timer.unref();
        socket.send(JSON.stringify(message), (err) => {
          clearTimeout(timer);
          if (settled) return;
          settled = true;
          if (err) reject(err);
          else resolve();
        });
      }),
    close: (code, reason) => {
      if (socket.readyState === socket.CLOSED) return;
      try {
        socket.close(code, reason);
      } catch {
        socket.terminate();
      }
      // A client that never answers the close handshake is cut off.
      setTimeout(() => socket.terminate(), 5000).unref();
    },
  };
}

/**
 * ElevenLabs' realtime text to speech over a WebSocket: `stream-input` (one stream) and `multi-stream-input`
 * (several contexts), with the voices, formats, keys and credits of the REST routes.
 */
export function realtimeRoutes(deps: RealtimeRoutesDeps): FastifyPluginAsyncZod {
  return async (app) => {
    // A key in the query (browsers cannot set headers on a WebSocket) is read as the header would be.
    app.addHook('onRequest', async (request) => {
      const query = request.query as Record<string, unknown> | undefined;
      const key = query && Object.hasOwn(query, 'xi_api_key') ? query.xi_api_key : undefined;
      if (typeof key === 'string' && key.trim() && request.headers['xi-api-key'] === undefined)
        request.headers['xi-api-key'] = key.trim();
    });

    for (const multi of [false, true]) {
      app.route({
        method: 'GET',
        url: `/v1/text-to-speech/:voice_id/${multi ? 'multi-stream-input' : 'stream-input'}`,
        // A key in the header or the query, or a session, is checked before the upgrade (a refused one never upgrades);
        // without either, the first message must carry the key (ElevenLabs' `xi_api_key`).
        config: { auth: 'optional-caller' },
        schema: {
          tags: ['elevenlabs'],
          summary: multi
            ? 'ElevenLabs-compatible realtime speech over a WebSocket, several contexts on one socket'
            : 'ElevenLabs-compatible realtime speech over a WebSocket: text in as it is written, audio out as it is spoken',
          description: multi ? `${PROTOCOL}\n${MULTI}` : PROTOCOL,
          security: [{ xiApiKey: [] }, { session: [] }, { cookie: [] }, {}],
          params: RealtimeParams,
          querystring: RealtimeQuery,
          response: { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody },
        },
        handler: async () => {
          throw notUpgraded();
        },
        wsHandler: (socket: WebSocket, request: FastifyRequest) => serve(socket, request, multi),
      });
    }

    function serve(socket: WebSocket, request: FastifyRequest, multi: boolean): void {
      const locale = requestLocale(request);
      const params = request.params as { voice_id: string };
      const query = request.query as RealtimeQuery;
      const port = adapt(socket, {
        maxUnsentBytes: deps.config.REALTIME_MAX_UNSENT_BYTES,
        sendTimeoutSeconds: deps.config.REALTIME_SEND_TIMEOUT_SECONDS,
      });
      // Messages that arrive while the voice is looked up wait for the session.
      const early: [Buffer, boolean][] = [];
      let session: RealtimeSession | null = null;
      let closed = false;
      // Wakes the wait for a first message that carries the key.
      let waitFirst: (() => void) | null = null;
      socket.on('message', (data: Buffer, isBinary: boolean) => {
        if (session) return guarded(() => session!.onMessage(data, isBinary));
        if (early.length < MAX_EARLY) {
          early.push([data, isBinary]);
          waitFirst?.();
        }
        // A client that floods the socket before it is ready is stopped, never silently cut short.
        else if (early.length === MAX_EARLY) {
          early.push([data, isBinary]);
          refuse(new AppError('RATE_LIMITED', { seconds: 1 }));
        }
      });
      const gone = () => {
        closed = true;
        waitFirst?.();
        guarded(() => session?.onClose());
      };
      socket.on('close', gone);
      // A client that drops the connection (its FIN, no close frame) is gone at once: ws answers with its own FIN, and
      // the socket's 'close' follows only later, so nothing may start (be held, spoken or charged) in between.
      request.raw.socket.once('end', gone);
      // Nothing a listener throws may reach the emitter (an uncaught exception): the socket alone ends.
      function guarded(run: () => void): void {
        try {
          run();
        } catch (err) {
          request.log.error({ err }, 'realtime socket listener failed');
          socket.terminate();
        }
      }
      /** The caller a key in the first message names, admitted with its slot held until the socket closes. */
      async function firstKey(): Promise<Caller> {
        const seconds = query.inactivity_timeout ?? DEFAULT_INACTIVITY;
        const first = await new Promise<Buffer | null>((resolve) => {
          const timer = setTimeout(() => resolve(null), seconds * 1000);
          timer.unref();
          const poll = () => {
            if (early.length > 0 || closed) {
              clearTimeout(timer);
              resolve(early[0]?.[0] ?? null);
            } else waitFirst = poll;
          };
          poll();
        });
        waitFirst = null;
        if (closed) throw new AppError('UNAUTHENTICATED');
        const secret = first ? keyInMessage(first) : null;
        if (secret === null) throw new AppError('UNAUTHENTICATED');
        const { caller, release } = await admitKey(secret, deps.keyGate);
        if (closed) release();
        else socket.once('close', release);
        return caller;
      }
      const refuse = (e: unknown) => {
        const error = isAppError(e) ? e : new AppError('INTERNAL');
        if (!isAppError(e)) request.log.error({ err: e }, 'realtime socket failed to open');
        const message = errorMessage(error.code, locale, error.code === 'INTERNAL' ? {} : error.params);
        void port
          .send({ error: error.code, message, code: error.status, request_id: request.id })
          .catch(() => {})
          .then(() => port.close(error.code === 'INTERNAL' ? 1011 : 1008, `${error.code}`));
      };
      void (async () => {
        const auth = request.auth;
        const caller: Caller =
          auth.caller ?? (auth.session ? { accountId: auth.session.accountId, key: null } : await firstKey());
        const voiceId = params.voice_id;
        if (!voiceId.startsWith('voice_')) throw new AppError('NOT_FOUND');
        assertVoiceAllowed(caller, voiceId);
        const voice = await deps.voices.get(voiceId, caller.accountId);
        const maxTextLength = await deps.plans.maxTextLength(caller.accountId);
        if (closed || early.length > MAX_EARLY) return;
        // An account disabled while the socket is open has it closed, told why (its holds released as it closes).
        const forget = deps.realtimeSockets.add(caller.accountId, (error) => refuse(error));
        socket.once('close', forget);
        const charge = chargeOf(caller, 'api');
        const outputFormat = query.output_format ?? 'mp3_44100_128';
        const history = new RealtimeHistory(deps.history, {
          accountId: charge.accountId,
          apiKeyId: charge.apiKeyId ?? null,
          requestId: request.id,
          route: routeOf(request),
          settings: settingsOf({ ...query, output_format: outputFormat }),
          outputFormat,
        });
        session = new RealtimeSession({
          synthesis: deps.synthesis,
          provenance: deps.provenance,
          socket: port,
          multi,
          voice,
          voiceId,
          charge,
          format: elevenLabsFormat(outputFormat)!,
          ...(query.language_code ? { language: query.language_code } : {}),
          autoMode: query.auto_mode ?? false,
          syncAlignment: query.sync_alignment ?? false,
          inactivitySeconds: query.inactivity_timeout ?? DEFAULT_INACTIVITY,
          locale,
          requestId: request.id,
          maxTextLength,
          log: request.log,
          history,
        });
        for (const [data, isBinary] of early.splice(0)) guarded(() => session!.onMessage(data, isBinary));
      })().catch(refuse);
    }
  };
}
