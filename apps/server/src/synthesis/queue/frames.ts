import { z } from 'zod';
import { ERROR_CODES, type ErrorCode } from '@polyvox/contracts';
import type { Timings } from '@polyvox/speech';
import { AppError } from '../../platform/errors.js';
import type { RenderedAudio } from '../types.js';
import { timingsSchema } from '../wire.js';

/**
 * The messages a worker sends on an interactive request's output channel (a Redis channel the API process
 * subscribed to): one frame each, whose first byte says what the rest is.
 */
export const Msg = {
  /** The worker took the request; the rest is its id (whose heartbeat the API process watches). */
  Started: 1,
  /** Encoded audio. */
  Chunk: 2,
  /** `{done, total}` as JSON. */
  Progress: 3,
  /** The end of the audio: the rendered audio's details as JSON. */
  Done: 4,
  /** The request failed: its contract code and params as JSON. */
  Failed: 5,
  /** A stream's alignment so far (JSON), before the audio it times. */
  Timings: 6,
} as const;
export type Msg = (typeof Msg)[keyof typeof Msg];

export function frame(type: Msg, payload: Buffer | string = Buffer.alloc(0)): Buffer {
  return Buffer.concat([Buffer.from([type]), typeof payload === 'string' ? Buffer.from(payload) : payload]);
}

/** A frame's type (its first byte; a type this release does not know is passed on and ignored) and its body. */
export function readFrame(message: Buffer): { type: Msg; body: Buffer } {
  return { type: message[0] as Msg, body: message.subarray(1) };
}

/**
 * A frame whose JSON body is not what its type says: sent by a worker of another release, or damaged. It fails the
 * request it came for (never the process), and says which frame and what is wrong with it.
 */
export class QueueFrameError extends Error {
  override readonly name = 'QueueFrameError';

  constructor(
    readonly frame: string,
    readonly problem: string,
  ) {
    super(`worker's ${frame} message is invalid: ${problem}`);
  }
}

function decode<T>(name: string, schema: z.ZodType<T>, body: Buffer): T {
  let value: unknown;
  try {
    value = JSON.parse(body.toString());
  } catch (e) {
    throw new QueueFrameError(name, `not JSON (${e instanceof Error ? e.message : String(e)})`);
  }
  const checked = schema.safeParse(value);
  if (!checked.success)
    throw new QueueFrameError(
      name,
      checked.error.issues
        .slice(0, 3)
        .map((issue) => `${issue.path.length ? issue.path.join('.') : '(body)'}: ${issue.message}`)
        .join('; '),
    );
  return checked.data;
}

const progressBody = z.object({ done: z.number(), total: z.number() });
const doneBody: z.ZodType<Omit<RenderedAudio, 'audio'>> = z.object({
  durationSec: z.number(),
  cached: z.boolean(),
  mark: z.number().nullable().optional(),
  timings: timingsSchema.optional(),
});
const failedBody = z.object({
  code: z.enum(ERROR_CODES as [ErrorCode, ...ErrorCode[]]),
  params: z.record(z.string(), z.union([z.string(), z.number()])),
});

/** The bodies of the frames that carry JSON, read back and checked (`QueueFrameError` when one is not valid). */
export const decodeFrame = {
  progress: (body: Buffer): { done: number; total: number } => decode('progress', progressBody, body),
  done: (body: Buffer): Omit<RenderedAudio, 'audio'> => decode('done', doneBody, body),
  timings: (body: Buffer): Timings => decode('timings', timingsSchema, body),
  /** The error a failed request ends with, as the worker's contract code and params name it. */
  failed: (body: Buffer): AppError => {
    const { code, params } = decode('failed', failedBody, body);
    return new AppError(code, params);
  },
};
