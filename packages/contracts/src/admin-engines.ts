import { z } from 'zod';

/** Operator console: engines, models, remote providers (issue 30, point 8) and runtime settings (point 9). */

export const PROVIDER_KIND_VALUES = ['openai', 'elevenlabs'] as const;

export const EngineHealth = z.object({
  id: z.string(),
  kind: z.enum(['local', 'remote']),
  models: z.number().int(),
  voices: z.number().int(),
  status: z.enum(['ok', 'unavailable']),
  message: z.string().nullable(),
});
export const EnginesResponse = z.object({
  /** Whether this process's engines have started (an API process of a scale-out never starts them). */
  started: z.boolean(),
  engines: z.array(EngineHealth),
  model_problems: z.array(z.object({ folder: z.string(), message: z.string() })),
});

const Licence = z.object({ name: z.string(), commercial: z.boolean(), url: z.string().nullable() });
export const InstallSchema = z.object({
  id: z.string(),
  model: z.string(),
  status: z.enum(['running', 'succeeded', 'failed']),
  bytes_done: z.number(),
  bytes_total: z.number(),
  error: z.string().nullable(),
  started_by: z.string(),
  started_at: z.string(),
  finished_at: z.string().nullable(),
});
export const ModelsResponse = z.object({
  models_dir: z.string(),
  installed: z.array(z.object({ name: z.string(), licence: Licence.nullable(), installed_at: z.string().nullable() })),
  catalogue: z.array(
    z.object({
      name: z.string(),
      family: z.string(),
      languages: z.array(z.string()),
      speakers: z.number().int(),
      bytes: z.number(),
      licence: Licence,
      installed: z.boolean(),
    }),
  ),
  installs: z.array(InstallSchema),
});
export const InstallRequest = z.strictObject({
  name: z.string().min(1).max(200),
  /** Required (and only an owner may give it) for a model whose licence does not allow commercial use. */
  confirm_non_commercial: z.boolean().optional(),
});

const url = z
  .string()
  .max(500)
  .url()
  .refine((v) => /^https?:\/\//i.test(v), 'must be an http:// or https:// URL');
export const ProviderSchema = z.object({
  id: z.string(),
  kind: z.enum(PROVIDER_KIND_VALUES),
  name: z.string(),
  url: z.string(),
  model: z.string().nullable(),
  /** The key's last four characters: the key itself is never answered. */
  key_hint: z.string(),
  enabled: z.boolean(),
  overridden_by_env: z.boolean(),
  last_test: z.object({ at: z.string(), ok: z.boolean(), message: z.string().nullable() }).nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export const ProvidersResponse = z.object({
  items: z.array(ProviderSchema),
  /** The kinds the environment configures: those win over the console's. */
  env: z.array(z.enum(PROVIDER_KIND_VALUES)),
});
export const CreateProviderRequest = z.strictObject({
  kind: z.enum(PROVIDER_KIND_VALUES),
  name: z.string().trim().min(1).max(100),
  url,
  model: z.string().trim().min(1).max(100).nullable().optional(),
  key: z.string().min(1).max(500),
});
export const UpdateProviderRequest = z.strictObject({
  name: z.string().trim().min(1).max(100).optional(),
  url: url.optional(),
  model: z.string().trim().min(1).max(100).nullable().optional(),
  key: z.string().min(1).max(500).optional(),
});
export const ProviderEnabledRequest = z.strictObject({ enabled: z.boolean() });
export const ProviderIdParams = z.object({ id: z.string().min(1).max(100) });
export const ModelNameParams = z.object({ name: z.string().min(1).max(200) });
export const InstallIdParams = z.object({ id: z.string().min(1).max(100) });

export const SETTING_KEYS = [
  'ANONYMOUS_TRIAL_CREDITS',
  'FREE_PLAN_CREDITS',
  'TRIAL_GRANTS_PER_IP_DAY',
  'PLAN_GRANTS_PER_IP_DAY',
  'ACCOUNT_LIMIT_PER_IP_HOUR',
  'CODE_LIMIT_PER_IP_HOUR',
  'CODE_LIMIT_PER_EMAIL_DAY',
  'SIGN_IN_LIMIT_PER_IP_MINUTE',
  'VERIFY_PER_MINUTE',
  'AI_LABEL_EXPLICIT',
  'AI_LABEL_POSITION',
  'SIGNUP_OPEN',
  'MODERATION_KEEP_DAYS',
  'VOICE_RETENTION_DAYS',
  'HISTORY_RETENTION_DAYS',
  'MODERATION_FAIL_SYNTHESIS',
  'MODERATION_FAIL_DESIGN',
  'SMS_COUNTRIES',
  'SMS_LIMIT_PER_IP_HOUR',
  'SMS_FREE_PER_IP_DAY',
  'SMS_DAILY_CAP',
  'REAL_NAME',
] as const;
export type SettingKey = (typeof SETTING_KEYS)[number];

const SettingValues = z.record(z.string(), z.union([z.number(), z.string(), z.boolean()]));
export const SettingsResponse = z.object({
  /** In force now. */
  values: SettingValues,
  /** What the process started with (environment, credits.json): a key never set in the console keeps it. */
  starting: SettingValues,
  /** The keys set in the console. */
  overrides: SettingValues,
  version: z.number().int(),
  updated_at: z.string().nullable(),
  updated_by: z.string().nullable(),
});
