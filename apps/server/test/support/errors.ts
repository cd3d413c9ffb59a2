import { expect } from 'vitest';
import { ERROR_STATUS, type ErrorCode } from '@polyvox/contracts';
import type { Reply } from './client.js';

/** Asserts the contract's error shape: status, code, a message, and a request id equal to x-request-id. */
export function expectError(
  res: Reply,
  code: ErrorCode,
  status: number = ERROR_STATUS[code],
): { message: string; request_id: string } {
  expect({ status: res.status, body: res.body }).toEqual({
    status,
    body: { error: { code, message: expect.any(String), request_id: expect.stringMatching(/^req_/) } },
  });
  const error = (res.body as { error: { message: string; request_id: string } }).error;
  expect(error.message.length).toBeGreaterThan(0);
  expect(res.headers.get('x-request-id')).toBe(error.request_id);
  return error;
}

/** A retry-after header as whole seconds, asserted to lie within [min, max]. */
export function expectRetryAfter(res: Reply, min: number, max: number): number {
  const raw = res.headers.get('retry-after');
  expect(raw).toMatch(/^\d+$/);
  const seconds = Number(raw);
  expect(seconds).toBeGreaterThanOrEqual(min);
  expect(seconds).toBeLessThanOrEqual(max);
  return seconds;
}

/** A tiny valid PNG (1×1). */
export const PNG_1X1 = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

/** A valid PNG padded with zeros to exactly `size` bytes. */
export function pngOfSize(size: number): Buffer {
  const out = Buffer.alloc(size);
  PNG_1X1.copy(out);
  return out;
}

export function avatarForm(data: Buffer | string, options: { type?: string | null; filename?: string } = {}): FormData {
  const form = new FormData();
  if (options.type !== null) form.set('type', options.type ?? 'avatar');
  form.set('file', new Blob([typeof data === 'string' ? Buffer.from(data) : data]), options.filename ?? 'avatar.png');
  return form;
}
