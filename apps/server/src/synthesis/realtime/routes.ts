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
import { DEFAULT_INACTIVITY, MAX_CONTEXTS, MIN_PIECE_CHARACTERS, RealtimeParams, RealtimeQuery } from './protocol.js';
import { unread } from './messages.js';
import { RealtimeSession, type RealtimeSocket } from './session.js';
import type { Config } from '../../platform/config.js';
import { chargeOf } from '../route-helpers.js';
import type { SynthesisService } from '../service.js';
import type { AccountSockets } from './account-sockets.js';

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

const PROTOCOL = `
Upgrade this GET to a WebSocket (\`ws://\` or \`wss://\`). ElevenLabs' realtime protocol, so its clients work with
only their base URL and key changed. Authentication: a Polyvox key in the \`xi-api-key\` header (or the
\`xi_api_key\` query parameter, for browsers), or a session (\`x-sid\` header or the console's cookie): a refused key,
rate or concurrency slot is answered before the upgrade, as for any request. Without either, the first message must
carry the key (\`xi_api_key\`, or \`authorization\` as \`Bearer pvx_…\`), as ElevenLabs' older clients send it; a first
message without one is answered \`UNAUTHENTICATED\` and the socket closed. The socket counts as one request in flight
for the key's concurrency for as long as it is open.

Query: \`output_format\` (any of ElevenLabs' formats, default \`mp3_44100_128\`), \`language_code\`,
\`inactivity_timeout\` (seconds, 1 to 180, default 20: no message for that long while nothing is being spoken closes
the socket; on \`multi-stream-input\`, each context alone), \`auto_mode\` (\`true\`: speak each sentence as soon as it ends instead of following the schedule),
\`sync_alignment\` (\`true\`: every audio message carries the alignment of exactly its own audio; default
\`false\`: the same messages carry \`"alignment": null\`). \`model_id\`,
\`enable_logging\`, \`enable_ssml_parsing\`, \`apply_text_normalization\` and others are accepted and ignored.

Client messages (JSON text frames):
- \`{"text": " ", "voice_settings": {"speed": 1.0}, "generation_config": {"chunk_length_schedule": [120, 160, 250, 290]}}\`:
  the opening message. Its text is a single space; anything else first is refused. \`speed\` is 0.5 to 2;
  \`stability\` (default 0.5) sets the pitch range (wider below, steadier above), \`style\` (default 0) widens it,
  \`use_speaker_boost: false\` makes the tone a little duller, \`similarity_boost\` is accepted without effect; at
  ElevenLabs' defaults the voice is as it is. A later message's settings apply to the pieces after it.
- \`{"text": "Hello world. "}\`: text as it is produced. Once as many characters wait as the schedule's next step
  (each step 50 to 500; after the last, the last repeats), the words that wait are spoken.
- \`{"text": "…", "flush": true}\` or \`{"flush": true}\`: speak everything that waits now.
- \`{"text": "…", "try_trigger_generation": true}\`: speak the whole words that wait if there are 50 characters or more.
- \`{"text": ""}\` (\`stream-input\`): the end. What waits is spoken, \`{"isFinal": true}\` is sent, the socket closes (1000).

Server messages: \`{"audio": "<base64>", "isFinal": false, "normalizedAlignment": {...}, "alignment": {...}, "characters": 12}\`
(\`characters\`: the characters of the text its audio speaks, what it is paid for), each
alignment (with \`sync_alignment=true\`) \`{"chars": [...], "charStartTimesMs": [...], "charDurationsMs": [...]}\` (also spelled
\`charsStartTimesMs\`, \`charsDurationsMs\`, \`char_start_times_ms\` and \`chars_durations_ms\`), times in milliseconds from the start of that message's audio; then
\`{"isFinal": true}\` (also \`is_final\`). With \`wav_*\` the stream's audio is one WAV file: its header (sizes unknown, the label
inside) leads the first audio message only, later messages are samples. Errors: \`{"error": "<CODE>", "message": "…", "code": <HTTP status>}\` with the
contract's codes, the message in the request's language (\`lang\`, \`Accept-Language\`), then a close: 1008 for bad
input (malformed JSON, text before the opening message, an unknown voice, an exhausted balance, inactivity), 1009 for
a message over 64 KiB, 1011 for a failure of ours. A client that does not read what it is sent (more than
\`REALTIME_MAX_UNSENT_BYTES\` waiting, or a message unwritten for \`REALTIME_SEND_TIMEOUT_SECONDS\`) is closed (1008,
\`VALIDATION_FAILED\` naming \`socket\` in the reason), its holds released and its key's slot freed.

Billing: each piece is priced and held as it is cut from the text, at its characters and at least ${MIN_PIECE_CHARACTERS}
(the minimum piece: a one-character flush costs ${MIN_PIECE_CHARACTERS}). It is charged the \`characters\` of its audio
messages written to the socket (at least the minimum once any was), the rest released: a socket that drops half way
through a piece pays for what it was sent. Text still waiting when the socket ends is never held or charged.
`;

const MULTI = `
\`multi-stream-input\`: up to ${MAX_CONTEXTS} contexts on one socket. Every message names its \`context_id\` (absent:
\`default\`); a context opens with \`{"text": " ", "context_id": "a", "voice_settings": {...}}\`, and every reply carries
\`contextId\` (and \`context_id\`). \`{"context_id": "a", "flush": true}\` speaks what waits, then sends
\`{"type": "flush_done", "flush_done": true, "contextId": "a"}\` once its audio is out. \`{"context_id": "a", "text": ""}\`
keeps a context alive: one without a message for \`inactivity_timeout\` while nothing of it is spoken ends alone (its error
with its \`contextId\`; unflushed text dropped, not charged); the socket closes once no context is left and it idles.
\`{"context_id": "a", "close_context": true}\` drops what waits unflushed (not charged),
finishes the pieces already cut and sends \`{"isFinal": true, "contextId": "a"}\`; its slot is free at once, and its id may
open again (a new context, its audio after the old one's). A message for a context not open (other than its opening
one) is answered with an error. \`{"close_socket": true}\` closes
every context so and then the socket (1000). An error in one context (text before its opening message …) is sent
with its \`contextId\` and ends only that context; an exhausted balance ends the socket.
`;

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
        session = new RealtimeSession({
          synthesis: deps.synthesis,
          provenance: deps.provenance,
          socket: port,
          multi,
          voice,
          voiceId,
          charge: chargeOf(caller, 'api'),
          format: elevenLabsFormat(query.output_format ?? 'mp3_44100_128')!,
          ...(query.language_code ? { language: query.language_code } : {}),
          autoMode: query.auto_mode ?? false,
          syncAlignment: query.sync_alignment ?? false,
          inactivitySeconds: query.inactivity_timeout ?? DEFAULT_INACTIVITY,
          locale,
          requestId: request.id,
          maxTextLength,
          log: request.log,
        });
        for (const [data, isBinary] of early.splice(0)) guarded(() => session!.onMessage(data, isBinary));
      })().catch(refuse);
    }
  };
}
