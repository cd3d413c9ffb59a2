import { z } from 'zod';
import { DEVICE_BRANDS, DEVICE_OS, LIMITS } from './limits.js';

export const DeviceSchema = z.object({
  udid: z.string().min(1).max(128),
  model: z.string().max(128).default(''),
  brand: z.enum(DEVICE_BRANDS),
  os: z.enum(DEVICE_OS),
});

export const AnonymousAccountRequest = z.object({
  channel: z.string().min(1).max(64).optional(),
  device: DeviceSchema,
  referrer: z.string().max(512).optional(),
});

export const AccountSchema = z
  .object({
    id: z.string(),
    sid: z.string().nullable(),
    code: z.string().describe('referral code of the account'),
    vip: z.object({
      level: z.string(),
      credits: z.number().int(),
      expire: z.string().nullable(),
    }),
    create_at: z.string(),
    name: z.string().nullable(),
    email: z.string().nullable(),
    mobile: z.string().nullable(),
    avatar: z.string().nullable(),
    referral: z.object({
      accounts: z.number().int(),
      binds: z.number().int(),
      devices: z.number().int(),
      vips: z.number().int(),
    }),
    binds: z.array(z.string()),
    additions: z.record(z.string(), z.unknown()),
    anonymous: z.boolean(),
  })
  .meta({ id: 'Account' });
export type Account = z.infer<typeof AccountSchema>;

export const AccountWithSession = z.object({ account: AccountSchema, sid: z.string() });

export const UpdateProfileRequest = z.object({
  name: z.string().trim().min(1).max(LIMITS.nameMaxLength).optional(),
  avatar: z.string().max(512).nullable().optional(),
});

export const EmailQuery = z.object({ email: z.string().optional() });
/** `GET /accounts/exists`: an email, or a number (E.164, or national form with `region`, default from `lang`). */
export const ExistsQuery = EmailQuery.extend({
  mobile: z.string().max(64).optional(),
  region: z.string().max(4).optional().describe('ISO 3166 region of a national number (CN, US…); default from lang'),
});
export const SmsCodeSendRequest = z.object({
  mobile: z.string().max(64).optional(),
  region: z.string().max(4).optional(),
  challenge: z
    .string()
    .max(4096)
    .optional()
    .describe('the solved proof-of-work (ALTCHA payload, base64) of GET /verification/challenge, once the server asks for one'),
});
export const SmsCodeRequest = z.object({
  mobile: z.string().max(64).optional(),
  region: z.string().max(4).optional(),
  vcode: z.string().max(64).optional(),
});
export const MobileChangeRequest = SmsCodeRequest.extend({
  current_vcode: z.string().max(64).optional().describe('code sent to the current number; needed when changing it'),
});
/**
 * An ALTCHA proof-of-work challenge (v2, no third-party service): the browser finds the counter whose SHA-256 starts
 * with `keyPrefix` (altcha-lib's solver) and sends back base64 of `{challenge, solution}` as `challenge`.
 */
export const PowChallenge = z.object({
  parameters: z.object({
    algorithm: z.string(),
    nonce: z.string(),
    salt: z.string(),
    cost: z.number(),
    keyLength: z.number(),
    keyPrefix: z.string(),
    expiresAt: z.number().optional(),
  }),
  signature: z.string().optional(),
});
export const SendCodeRequest = z.object({ email: z.string().optional() });
export const EmailCodeRequest = z.object({ email: z.string().optional(), vcode: z.string().optional() });
/** A registered account changing its email also proves the current address with `current_vcode`. */
export const EmailChangeRequest = EmailCodeRequest.extend({
  current_vcode: z.string().optional().describe('code sent to the current address; needed once the account is registered'),
});

export const ApiMeResponse = z.object({ id: z.string(), email: z.string().nullable(), anonymous: z.boolean() });
export const UploadResponse = z.object({ id: z.string(), url: z.string() });

export const ErrorBody = z
  .object({ error: z.object({ code: z.string(), message: z.string(), request_id: z.string() }) })
  .meta({ id: 'Error' });
