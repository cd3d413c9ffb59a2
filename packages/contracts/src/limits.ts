/** Limits shared by the server's checks and the console's own validation. */
export const LIMITS = {
  codeLength: 6,
  codeTtlSeconds: 600,
  codeResendSeconds: 60,
  codeMaxAttempts: 5,
  sessionDays: 30,
  nameMaxLength: 40,
  avatarMaxBytes: 2 * 1024 * 1024,
  avatarTypes: ['image/png', 'image/jpeg', 'image/webp'] as const,
  maxTextLength: 5000,
  /** Texts longer than this run as a synthesis job with progress. */
  jobThreshold: 1000,
  mixMax: 3,
  previewVersions: 50,
  cloneMaxBytes: 20 * 1024 * 1024,
  cloneMinSeconds: 10,
  cloneMaxSeconds: 300,
} as const;

export const DEVICE_OS = ['android', 'ios', 'osx', 'windows', 'other'] as const;
export const DEVICE_BRANDS = ['apple', 'microsoft', 'xiaomi', 'vivo', 'huawei', 'other'] as const;
export const DEFAULT_CHANNEL = 'def_web';

/** A pragmatic email check: one @, a dotted domain, no spaces; the same rule on both sides. */
export const EMAIL_PATTERN = /^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/;
export function isEmail(value: string): boolean {
  return value.length <= 254 && EMAIL_PATTERN.test(value);
}
