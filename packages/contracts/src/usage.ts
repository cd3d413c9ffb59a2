import { z } from 'zod';

/** The kinds of record a user sees: the charges (by what they paid for) and the credits that came in. */
export const RECORD_TYPES = ['preview', 'api', 'text_to_voice', 'clone', 'tts', 'purchase', 'grant', 'refund'] as const;
export type RecordType = (typeof RECORD_TYPES)[number];

/** `YYYY-MM-DD` (a whole UTC day) or an ISO-8601 time with its zone. */
const DAY = /^\d{4}-\d{2}-\d{2}$/;
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
/** A real calendar day (Date.parse rolls 2026-02-31 over into March) and a parseable time. */
function isMoment(s: string): boolean {
  if (!DAY.test(s) && !INSTANT.test(s)) return false;
  const day = s.slice(0, 10);
  const midnight = new Date(`${day}T00:00:00Z`);
  return !Number.isNaN(midnight.getTime()) && midnight.toISOString().slice(0, 10) === day && !Number.isNaN(Date.parse(s));
}
const moment = z.string().max(40).refine(isMoment, 'must be a date (YYYY-MM-DD) or an ISO-8601 time');

/** A filter left empty (`type=`) is no filter. */
const optional = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (v === '' ? undefined : v), schema.optional());

export const RecordsQuery = z
  .object({
    page: z.coerce.number().int().min(1).max(100_000).default(1),
    page_size: z.coerce.number().int().min(1).max(100).default(20),
    type: optional(z.enum(RECORD_TYPES)),
    // Every console request carries `from=web` (API.md, common rules): that marker is no date filter.
    from: z
      .preprocess((v) => (v === '' || v === 'web' ? undefined : v), moment.optional())
      .describe('a date or time; `web`, the marker every console request carries, filters nothing'),
    to: optional(moment),
    api_key: optional(z.string().max(64)),
  })
  .passthrough();

export const CreditRecordSchema = z
  .object({
    id: z.string(),
    type: z.enum(RECORD_TYPES),
    amount: z.number().int().describe('credits in (positive) or charged (negative)'),
    balance_after: z
      .number()
      .int()
      .describe(
        "the balance after this record, in the order the ledger applied them: the previous record's plus this amount (credits held by work still running are not spent yet)",
      ),
    characters: z.number().int().nullable(),
    voice_id: z.string().nullable(),
    api_key_id: z.string().nullable(),
    order_id: z.string().nullable(),
    created_at: z.string(),
    reason: z
      .string()
      .nullable()
      .describe("an operator's grant or deduction (a `grant` record, negative for a deduction): the reason the operator gave"),
  })
  .meta({ id: 'CreditRecord' });
export type CreditRecord = z.infer<typeof CreditRecordSchema>;

export const RecordsResponse = z.object({
  items: z.array(CreditRecordSchema),
  total: z.number().int(),
  page: z.number().int(),
  page_size: z.number().int(),
});

export const DayCreditsQuery = z.object({ days: z.coerce.number().int().min(1).max(366).default(30) }).passthrough();
export const DayCreditsResponse = z.object({
  items: z.array(
    z.object({
      day: z.string().describe('YYYY-MM-DD, UTC'),
      credits: z.number().int().describe('credits charged: settled work and activation fees'),
      calls: z.number().int().describe('calls made with an API key'),
    }),
  ),
});
export const CurrentStatisticsResponse = z.object({
  credits: z.number().int().describe('the spendable balance'),
  calls_today: z.number().int().describe('calls made with an API key today (UTC)'),
  credits_today: z.number().int().describe('credits charged today (UTC): settled work and activation fees'),
  calls_total: z.number().int().describe('calls made with an API key, all time'),
});
