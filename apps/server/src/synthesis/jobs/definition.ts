import { z } from 'zod';

/**
 * One kind of job: its name, the schema of the payload it stores (in a job row, or in a queue message), and, for the
 * types only, what its handler is given beside the payload and what it gives back. The handler itself is registered
 * with the job layer (layer.ts), which refuses to start while a kind has none.
 */
export interface JobDefinition<P, C = unknown, R = void> {
  /** What queue messages, logs and errors call the kind. */
  readonly name: string;
  /** What a stored payload must look like; checked whenever one is read back. */
  readonly payload: z.ZodType<P>;
  /** Types only (never set): the handler's signature. */
  readonly handler?: JobHandler<P, C, R>;
}

export type JobHandler<P, C, R> = (payload: P, context: C) => Promise<R>;

export type AnyJobDefinition = JobDefinition<any, any, any>;

export function defineJob<P, C = unknown, R = void>(name: string, payload: z.ZodType<P>): JobDefinition<P, C, R> {
  return { name, payload };
}

/**
 * A stored payload that is not what its kind expects: written by another release, or damaged. It fails that one
 * job (never the process), and its message says which job and what is wrong with it.
 */
export class JobPayloadError extends Error {
  override readonly name = 'JobPayloadError';

  constructor(
    readonly kind: string,
    readonly jobId: string,
    readonly problem: string,
  ) {
    super(`stored payload of ${kind} job ${jobId} is invalid: ${problem}`);
  }
}

/** The payload as it is stored: JSON text. */
export function writePayload<P, C, R>(_definition: JobDefinition<P, C, R>, payload: P): string {
  return JSON.stringify(payload);
}

/**
 * A stored payload read back and checked against its kind's schema: JSON text (a job row) or a value already parsed
 * (a queue message). Throws `JobPayloadError` when it is not valid JSON or does not match.
 */
export function readPayload<P, C, R>(definition: JobDefinition<P, C, R>, jobId: string, stored: unknown): P {
  let value: unknown = stored;
  if (typeof stored === 'string') {
    try {
      value = JSON.parse(stored);
    } catch (e) {
      throw new JobPayloadError(definition.name, jobId, `not JSON (${e instanceof Error ? e.message : String(e)})`);
    }
  }
  const checked = definition.payload.safeParse(value);
  if (!checked.success) throw new JobPayloadError(definition.name, jobId, describeIssues(checked.error));
  return checked.data;
}

/** The schema's complaints on one line: `request.voice.id: expected string, received undefined; …`. */
function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.length ? issue.path.join('.') : '(payload)'}: ${issue.message}`)
    .join('; ');
}
