import { z } from 'zod';
import { LIMITS } from './limits.js';

/** ElevenLabs' pronunciation dictionaries: its field names and shapes, so its SDK reads them unchanged. */

/**
 * What no rule string may hold: control characters (all but tab, line feed and carriage return, which are
 * whitespace), lone surrogates and U+FFFE/U+FFFF. None has a use in a word or its pronunciation, and none can be
 * written in XML, so a version holding one could not be downloaded as a PLS file.
 */
// eslint-disable-next-line no-control-regex
export const RULE_CONTROL_CHARACTERS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\uFFFE\uFFFF]|\p{Cs}/u;
export const NO_CONTROL_CHARACTERS = 'must not contain control characters';

const ruleString = (what: string) =>
  z
    .string()
    .min(1)
    .max(LIMITS.pronunciationRuleMaxLength)
    .refine((s) => s.trim() !== '', `${what} must not be blank`)
    .refine((s) => !RULE_CONTROL_CHARACTERS.test(s), NO_CONTROL_CHARACTERS);

const ruleCommon = {
  string_to_replace: ruleString('string_to_replace'),
  /** Default true: the rule matches its string exactly, case included. */
  case_sensitive: z.boolean().optional(),
  /** Default true: the rule matches whole words only. */
  word_boundaries: z.boolean().optional(),
};

export const PRONUNCIATION_ALPHABETS = ['ipa', 'cmu-arpabet'] as const;

export const PronunciationAliasRule = z.object({ type: z.literal('alias'), ...ruleCommon, alias: ruleString('alias') });
export const PronunciationPhonemeRule = z.object({
  type: z.literal('phoneme'),
  ...ruleCommon,
  phoneme: ruleString('phoneme'),
  alphabet: z.enum(PRONUNCIATION_ALPHABETS),
});
export const PronunciationRule = z
  .discriminatedUnion('type', [PronunciationAliasRule, PronunciationPhonemeRule])
  .meta({ id: 'PronunciationRule' });
export type PronunciationRule = z.infer<typeof PronunciationRule>;

export const PronunciationRules = z.array(PronunciationRule).min(1).max(LIMITS.pronunciationMaxRules);

/** `pronunciation_dictionary_locators` of a synthesis request: at most 3, applied in order. */
export const PronunciationLocator = z.object({
  pronunciation_dictionary_id: z.string().min(1).max(64),
  /** A version of the dictionary; absent or null: its latest. */
  version_id: z.string().min(1).max(64).nullish(),
});
export const PronunciationLocators = z.array(PronunciationLocator).max(LIMITS.pronunciationMaxLocators).optional().meta({
  description:
    "Pronunciation dictionaries to apply, in order (at most 3): `{pronunciation_dictionary_id, version_id}`; without any, the account's default dictionary, if it set one",
});

export const AddFromRulesRequest = z.object({
  name: z.string().min(1).max(100),
  description: z.string().max(1000).nullish(),
  rules: PronunciationRules,
  /** Polyvox: make it the account's default dictionary (applied when a request names none). */
  default: z.boolean().optional(),
  workspace_access: z.string().max(32).nullish(),
});

export const AddRulesRequest = z.object({ rules: PronunciationRules });
export const RemoveRulesRequest = z.object({
  rule_strings: z.array(z.string().min(1).max(LIMITS.pronunciationRuleMaxLength)).min(1).max(LIMITS.pronunciationMaxRules),
});
export const UpdateDictionaryRequest = z.object({
  name: z.string().min(1).max(100).optional(),
  archived: z.boolean().optional(),
  /** Polyvox: true makes it the account's default dictionary, false stops it being the default. */
  default: z.boolean().optional(),
});

const PERMISSIONS = ['admin', 'editor', 'commenter', 'viewer'] as const;

/** What creating a dictionary answers (ElevenLabs' `AddPronunciationDictionaryResponseModel`). */
export const AddDictionaryResponse = z.object({
  id: z.string(),
  name: z.string(),
  created_by: z.string(),
  creation_time_unix: z.number().int(),
  version_id: z.string(),
  version_rules_num: z.number().int(),
  description: z.string().nullable(),
  permission_on_resource: z.enum(PERMISSIONS).nullable(),
  /** Polyvox: whether it is the account's default dictionary. */
  default: z.boolean(),
});

/** A dictionary's metadata (ElevenLabs' `GetPronunciationDictionaryMetadataResponse`). */
export const DictionaryMetadata = z
  .object({
    id: z.string(),
    latest_version_id: z.string(),
    latest_version_rules_num: z.number().int(),
    name: z.string(),
    permission_on_resource: z.enum(PERMISSIONS).nullable(),
    created_by: z.string(),
    creation_time_unix: z.number().int(),
    archived_time_unix: z.number().int().nullable(),
    description: z.string().nullable(),
    /** Polyvox: whether it is the account's default dictionary. */
    default: z.boolean(),
    /** Polyvox: shared by the operator with every account (read-only for them). */
    shared: z.boolean(),
  })
  .meta({ id: 'PronunciationDictionary' });

/** The rules as answered (the request's shapes; a phoneme rule keeps its PLS alias, when it had one, in `alias`). */
// (Strings as stored: a rule saved before control characters were refused is still answered.)
export const RuleOut = z.union([
  PronunciationAliasRule.extend({ string_to_replace: z.string(), alias: z.string() }),
  PronunciationPhonemeRule.extend({
    string_to_replace: z.string(),
    phoneme: z.string(),
    alphabet: z.string(),
    alias: z.string().optional(),
  }),
]);

export const DictionaryWithRules = DictionaryMetadata.extend({ rules: z.array(RuleOut) });

export const DictionaryList = z.object({
  pronunciation_dictionaries: z.array(DictionaryMetadata),
  next_cursor: z.string().nullable(),
  has_more: z.boolean(),
});

export const DictionaryListQuery = z.object({
  cursor: z.string().max(64).optional(),
  page_size: z.coerce.number().int().min(1).max(100).default(30),
  sort: z.enum(['creation_time_unix', 'name']).optional(),
  sort_direction: z.enum(['ascending', 'descending', 'ASCENDING', 'DESCENDING']).optional(),
  include_archived: z
    .enum(['true', 'false'])
    .transform((v) => v === 'true')
    .optional(),
});

/** What changing the rules answers (ElevenLabs' `PronunciationDictionaryRulesResponseModel`). */
export const RulesChangedResponse = z.object({
  id: z.string(),
  version_id: z.string(),
  version_rules_num: z.number().int(),
});

/** Polyvox: a dictionary's versions, newest first (`GET /v1/pronunciation-dictionaries/{id}/versions`). */
export const DictionaryVersions = z.object({
  versions: z.array(
    z.object({
      version_id: z.string(),
      version_rules_num: z.number().int(),
      creation_time_unix: z.number().int(),
      /** Whether it is the dictionary's latest version (the one applied when a locator names none). */
      latest: z.boolean(),
    }),
  ),
});
