import type { Kysely } from 'kysely';
import { z } from 'zod';
import { ConfigSchema, type Config } from './config.js';
import type { Database } from './db/schema.js';
import { RuntimeSettings } from './runtime-settings.js';

/**
 * The settings an operator changes in the console while the platform runs (issue 30, point 9), named as their
 * environment variables. Each is checked by the very rule the start-up applies to its variable (config.ts), so
 * the console accepts exactly what the environment would; the two trial amounts by credits.json's rule (a whole
 * number, 0 or more). A value set in the console wins over the one the process started with (environment or file),
 * which stays the value of any key never set there.
 */
const rules = ConfigSchema.shape;
const credits = z.number().int().min(0).max(100_000_000);

export const OperatorSettingsSchema = z.strictObject({
  /** Credits of a visitor's trial account (credits.json `anonymous_trial`). */
  ANONYMOUS_TRIAL_CREDITS: credits,
  /** Credits of the free plan granted at registration (credits.json `free_plan_grant`). */
  FREE_PLAN_CREDITS: credits,
  TRIAL_GRANTS_PER_IP_DAY: rules.TRIAL_GRANTS_PER_IP_DAY.unwrap(),
  PLAN_GRANTS_PER_IP_DAY: rules.PLAN_GRANTS_PER_IP_DAY.unwrap(),
  ACCOUNT_LIMIT_PER_IP_HOUR: rules.ACCOUNT_LIMIT_PER_IP_HOUR.unwrap(),
  CODE_LIMIT_PER_IP_HOUR: rules.CODE_LIMIT_PER_IP_HOUR.unwrap(),
  CODE_LIMIT_PER_EMAIL_DAY: rules.CODE_LIMIT_PER_EMAIL_DAY.unwrap(),
  SIGN_IN_LIMIT_PER_IP_MINUTE: rules.SIGN_IN_LIMIT_PER_IP_MINUTE.unwrap(),
  VERIFY_PER_MINUTE: rules.VERIFY_PER_MINUTE.unwrap(),
  AI_LABEL_EXPLICIT: rules.AI_LABEL_EXPLICIT.unwrap(),
  AI_LABEL_POSITION: rules.AI_LABEL_POSITION.unwrap(),
  SIGNUP_OPEN: z.boolean(),
  MODERATION_KEEP_DAYS: rules.MODERATION_KEEP_DAYS.unwrap(),
  VOICE_RETENTION_DAYS: rules.VOICE_RETENTION_DAYS.unwrap(),
  HISTORY_RETENTION_DAYS: rules.HISTORY_RETENTION_DAYS.unwrap(),
  MODERATION_FAIL_SYNTHESIS: rules.MODERATION_FAIL_SYNTHESIS.unwrap(),
  MODERATION_FAIL_DESIGN: rules.MODERATION_FAIL_DESIGN.unwrap(),
  SMS_COUNTRIES: rules.SMS_COUNTRIES.unwrap(),
  SMS_LIMIT_PER_IP_HOUR: rules.SMS_LIMIT_PER_IP_HOUR.unwrap(),
  SMS_DAILY_CAP: rules.SMS_DAILY_CAP.unwrap(),
  SMS_FREE_PER_IP_DAY: rules.SMS_FREE_PER_IP_DAY.unwrap(),
  REAL_NAME: rules.REAL_NAME.unwrap(),
});
export type OperatorSettings = z.infer<typeof OperatorSettingsSchema>;
export const OPERATOR_SETTING_KEYS = Object.keys(OperatorSettingsSchema.shape) as (keyof OperatorSettings)[];
/** A change: any of the keys, each checked by its rule; no other key. */
export const OperatorSettingsPatch = OperatorSettingsSchema.partial();

/** The values a process starts with: its configuration, and the trial amounts of credits.json. */
export function startingSettings(config: Config, trial: { anonymous_trial: number; free_plan_grant: number }): OperatorSettings {
  return {
    ANONYMOUS_TRIAL_CREDITS: trial.anonymous_trial,
    FREE_PLAN_CREDITS: trial.free_plan_grant,
    TRIAL_GRANTS_PER_IP_DAY: config.TRIAL_GRANTS_PER_IP_DAY,
    PLAN_GRANTS_PER_IP_DAY: config.PLAN_GRANTS_PER_IP_DAY,
    ACCOUNT_LIMIT_PER_IP_HOUR: config.ACCOUNT_LIMIT_PER_IP_HOUR,
    CODE_LIMIT_PER_IP_HOUR: config.CODE_LIMIT_PER_IP_HOUR,
    CODE_LIMIT_PER_EMAIL_DAY: config.CODE_LIMIT_PER_EMAIL_DAY,
    SIGN_IN_LIMIT_PER_IP_MINUTE: config.SIGN_IN_LIMIT_PER_IP_MINUTE,
    VERIFY_PER_MINUTE: config.VERIFY_PER_MINUTE,
    AI_LABEL_EXPLICIT: config.AI_LABEL_EXPLICIT,
    AI_LABEL_POSITION: config.AI_LABEL_POSITION,
    SIGNUP_OPEN: config.SIGNUP_OPEN,
    MODERATION_KEEP_DAYS: config.MODERATION_KEEP_DAYS,
    VOICE_RETENTION_DAYS: config.VOICE_RETENTION_DAYS,
    HISTORY_RETENTION_DAYS: config.HISTORY_RETENTION_DAYS,
    MODERATION_FAIL_SYNTHESIS: config.MODERATION_FAIL_SYNTHESIS,
    MODERATION_FAIL_DESIGN: config.MODERATION_FAIL_DESIGN,
    SMS_COUNTRIES: config.SMS_COUNTRIES,
    SMS_LIMIT_PER_IP_HOUR: config.SMS_LIMIT_PER_IP_HOUR,
    SMS_DAILY_CAP: config.SMS_DAILY_CAP,
    SMS_FREE_PER_IP_DAY: config.SMS_FREE_PER_IP_DAY,
    REAL_NAME: config.REAL_NAME,
  };
}

export type OperatorSettingsStore = RuntimeSettings<OperatorSettings>;

export function operatorSettings(
  db: Kysely<Database>,
  base: OperatorSettings,
  options: { ttlMs?: number; onError?: (err: unknown) => void } = {},
): OperatorSettingsStore {
  return new RuntimeSettings<OperatorSettings>({ db, name: 'settings', base, schema: OperatorSettingsPatch, ...options });
}
