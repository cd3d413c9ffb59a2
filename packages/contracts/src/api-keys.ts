import { z } from 'zod';

export const API_KEY_LIMITS = {
  nameMaxLength: 64,
  /** Keys an account may hold at once. */
  maxKeys: 50,
  maxCreditLimit: 1_000_000_000,
  defaultRequestsPerMinute: 60,
  maxRequestsPerMinute: 6000,
  defaultConcurrency: 4,
  maxConcurrency: 64,
  maxVoices: 100,
} as const;

const name = z.string().trim().min(1, 'must not be empty').max(API_KEY_LIMITS.nameMaxLength);
const limit = z.number().int().min(0).max(API_KEY_LIMITS.maxCreditLimit).nullable();
const rpm = z.number().int().min(1).max(API_KEY_LIMITS.maxRequestsPerMinute);
const concurrency = z.number().int().min(1).max(API_KEY_LIMITS.maxConcurrency);
const voices = z.array(z.string().min(1).max(128)).max(API_KEY_LIMITS.maxVoices).nullable();

export const ApiKeySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    limit: z.number().int().nullable().describe('credits the key may spend; null: no limit'),
    used: z.number().int().describe('credits the key has spent (work in flight included)'),
    prefix: z.string().describe('the first characters of the secret, to recognise it'),
    requests_per_minute: z.number().int(),
    concurrency: z.number().int(),
    voices: z.array(z.string()).nullable().describe('the only voices the key may use; null: any'),
    created_at: z.string(),
    last_used_at: z.string().nullable(),
  })
  .meta({ id: 'ApiKey' });
export type ApiKey = z.infer<typeof ApiKeySchema>;

export const ApiKeyListResponse = z.object({ items: z.array(ApiKeySchema) });

export const CreateApiKeyRequest = z.object({
  name,
  limit: limit.optional(),
  requests_per_minute: rpm.optional(),
  concurrency: concurrency.optional(),
  voices: voices.optional(),
});
export const CreatedApiKeyResponse = ApiKeySchema.extend({
  key: z.string().describe('the secret: shown this once, never again'),
});

export const UpdateApiKeyRequest = z.object({
  id: z.string().max(64),
  name: name.optional(),
  limit: limit.optional(),
  requests_per_minute: rpm.optional(),
  concurrency: concurrency.optional(),
  voices: voices.optional(),
});
export const DeleteApiKeyQuery = z.object({ id: z.string().max(64) }).passthrough();
