import type { SynthesisRequest } from '@polyvox/speech';
import type { Charge } from './service.js';

/**
 * A synthesis request as text, for a job row and for a queue message: everything but the signal and
 * the progress callback, with a reference sample's Float32Array as base64 of its bytes.
 */
export type WireRequest = Omit<SynthesisRequest, 'signal' | 'onProgress' | 'reference'> & {
  reference?: { samples: string; sampleRate: number; text?: string };
};

export function toWire(request: SynthesisRequest): WireRequest {
  // eslint-disable-next-line @typescript-eslint/no-unused-vars -- dropped: they do not cross processes
  const { signal, onProgress, reference, ...rest } = request;
  return {
    ...rest,
    ...(reference
      ? {
          reference: {
            samples: Buffer.from(reference.samples.buffer, reference.samples.byteOffset, reference.samples.byteLength).toString(
              'base64',
            ),
            sampleRate: reference.sampleRate,
            ...(reference.text !== undefined ? { text: reference.text } : {}),
          },
        }
      : {}),
  };
}

export function fromWire(wire: WireRequest): SynthesisRequest {
  const { reference, ...rest } = wire;
  if (!reference) return rest;
  const bytes = Buffer.from(reference.samples, 'base64');
  const samples = new Float32Array(bytes.byteLength / 4);
  new Uint8Array(samples.buffer).set(bytes);
  return {
    ...rest,
    reference: { samples, sampleRate: reference.sampleRate, ...(reference.text !== undefined ? { text: reference.text } : {}) },
  };
}

/** What a job row keeps so that any process can run it again: the request, its price and its charge. */
export interface JobData {
  request: WireRequest;
  voiceId: string;
  charge: Charge;
}

export function encodeJobData(data: JobData): string {
  return JSON.stringify(data);
}

export function decodeJobData(text: string): JobData {
  return JSON.parse(text) as JobData;
}
