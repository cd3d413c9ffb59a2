/**
 * One megabyte, as every size limit is stated: 1,000,000 bytes (decimal, as browsers and file
 * managers show sizes), so "20 MB" in a hint, an error message or the API document is the byte
 * count the server enforces, and a file the browser shows as 20.5 MB is over it.
 */
export const MB = 1_000_000;

/** A size limit as users read it: "20 MB". */
export function sizeLimitText(bytes: number): string {
  return `${bytes / MB} MB`;
}

/** Limits shared by the server's checks and the console's own validation. */
export const LIMITS = {
  codeLength: 6,
  codeTtlSeconds: 600,
  codeResendSeconds: 60,
  codeMaxAttempts: 5,
  sessionDays: 30,
  nameMaxLength: 40,
  avatarMaxBytes: 2 * MB,
  avatarTypes: ['image/png', 'image/jpeg', 'image/webp'] as const,
  maxTextLength: 5000,
  /** An SSML document, markup included (its spoken characters are held to `maxTextLength`). */
  ssmlMaxLength: 50_000,
  /**
   * The pauses (breaks, paragraph ends) one request, or one realtime piece, may ask for: this base once it has a priced
   * character, and this much per priced character, never more than the ceiling (apps/server/src/pronunciation/pause-budget.ts).
   */
  pauseBudget: { baseMs: 3_000, perCharacterMs: 500, maxMs: 60_000 },
  /** Texts longer than this run as a synthesis job with progress. */
  jobThreshold: 1000,
  mixMax: 3,
  previewVersions: 50,
  cloneMaxBytes: 20 * MB,
  cloneMinSeconds: 10,
  cloneMaxSeconds: 300,
  /** A file sent to `POST /provenance/verify`. */
  provenanceMaxBytes: 20 * MB,
  /** A preview reads a sentence or two. */
  previewTextMaxLength: 300,
  /** A voice description. */
  promptMaxLength: 500,
  /** What a clone sample says (5 minutes of speech at most). */
  transcriptMaxLength: 5000,
  /** A PLS file of pronunciation rules. */
  pronunciationFileMaxBytes: 1 * MB,
  /** Rules in one version of a pronunciation dictionary. */
  pronunciationMaxRules: 2000,
  /** Dictionaries one request may name (ElevenLabs' limit). */
  pronunciationMaxLocators: 3,
  /** Characters of a rule's string, alias or phonemes. */
  pronunciationRuleMaxLength: 500,
} as const;

/** The pause budget in words, for the API's descriptions. */
export const PAUSE_BUDGET_TEXT =
  `The pauses (breaks, paragraph ends) may add up to ${LIMITS.pauseBudget.baseMs / 1000} s plus ` +
  `${LIMITS.pauseBudget.perCharacterMs / 1000} s per priced character, ${LIMITS.pauseBudget.maxMs / 1000} s at most; ` +
  'more is 400 VALIDATION_FAILED naming the limit.';

export const DEVICE_OS = ['android', 'ios', 'osx', 'windows', 'other'] as const;
export const DEVICE_BRANDS = ['apple', 'microsoft', 'xiaomi', 'vivo', 'huawei', 'other'] as const;
export const DEFAULT_CHANNEL = 'def_web';

/**
 * One mailbox, nothing else: an ASCII local part without quotes, commas, semicolons or angle brackets
 * (each would let one "address" reach several mailboxes or another one), and a dotted host name.
 * The pattern is zod's own email pattern, with the RFC 5321 lengths; the same rule on both sides.
 */
export const EMAIL_PATTERN =
  /^(?:[A-Za-z0-9_'+-]+\.)*[A-Za-z0-9_'+-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\.)+[A-Za-z]{2,}$/;
export function isEmail(value: string): boolean {
  if (value.length > 254 || !EMAIL_PATTERN.test(value)) return false;
  const at = value.lastIndexOf('@');
  return (
    at <= 64 &&
    value
      .slice(at + 1)
      .split('.')
      .every((label) => label.length <= 63)
  );
}

/** The one spelling of an address that lookups, cooldowns and limits are keyed on. */
export function canonicalEmail(value: string): string {
  return value.trim().toLowerCase();
}
