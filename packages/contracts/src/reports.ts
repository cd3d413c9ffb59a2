import { z } from 'zod';
import { OperatorReason } from './admin-accounts.js';

export const REPORT_REASONS = ['impersonation', 'fraud', 'harassment', 'copyright', 'other'] as const;
export type ReportReason = (typeof REPORT_REASONS)[number];
export const REPORT_STATUSES = ['new', 'in_review', 'actioned', 'rejected'] as const;
export type ReportStatus = (typeof REPORT_STATUSES)[number];
export const PROTECTED_VOICE_CATEGORIES = ['public_figure', 'library', 'taken_down', 'other'] as const;

/**
 * `POST /reports` as JSON (a link to one of this server's files, or a voice id) or as the fields of a multipart body
 * beside `file`. `consent`: the reporter agrees to be contacted about the report (the outcome is mailed only then).
 */
export const ReportFields = z.object({
  url: z.string().trim().min(1).max(2000).optional(),
  voice_id: z.string().trim().min(1).max(64).optional(),
  reason: z.enum(REPORT_REASONS),
  details: z.string().trim().max(2000).optional(),
  contact: z.string().trim().email().max(254),
  consent: z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')]).optional(),
});
export type ReportFields = z.infer<typeof ReportFields>;
export const ReportCreated = z.object({ id: z.string() });

const ProvenanceRecord = z.object({
  produce_id: z.string(),
  account_id: z.string().nullable(),
  voice_id: z.string(),
  request_id: z.string().nullable(),
  api_key_id: z.string().nullable(),
  created_at: z.string(),
});

export const AdminReport = z.object({
  id: z.string(),
  status: z.enum(REPORT_STATUSES),
  reason: z.enum(REPORT_REASONS),
  details: z.string().nullable(),
  contact: z.string(),
  consent: z.boolean(),
  locale: z.string(),
  voice_id: z.string().nullable(),
  url: z.string().nullable(),
  has_file: z.boolean(),
  /** What the provenance check found in the reported audio: which account, voice and request made it, if ours. */
  provenance: z
    .object({
      ai_generated: z.boolean(),
      watermark: z.boolean(),
      aigc_valid: z.boolean(),
      c2pa_valid: z.boolean(),
      records: z.array(ProvenanceRecord),
    })
    .nullable(),
  /** The account the report points at: the voice's owner, or the account whose request made the file. */
  account_id: z.string().nullable(),
  /** The voice the report points at (named, or the one that made the file), when it is an account's own. */
  voice: z
    .object({ id: z.string(), name: z.string(), type: z.string(), account_id: z.string(), taken_down: z.boolean() })
    .nullable(),
  outcome: z.object({ action: z.string(), note: z.string().nullable() }).nullable(),
  handled_by: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type AdminReport = z.infer<typeof AdminReport>;

export const AdminReportQuery = z
  .object({
    status: z.enum(REPORT_STATUSES).optional(),
    page: z.coerce.number().int().min(1).max(100_000).default(1),
    page_size: z.coerce.number().int().min(1).max(100).default(20),
  })
  .passthrough();
export const AdminReportList = z.object({
  items: z.array(AdminReport),
  total: z.number().int(),
  page: z.number().int(),
  page_size: z.number().int(),
});
export const ReportActionRequest = z.object({ reason: OperatorReason });
export const ReportProtectRequest = z.object({ reason: OperatorReason, name: z.string().trim().min(1).max(100) });

export const ProtectedVoice = z.object({
  id: z.string(),
  name: z.string(),
  category: z.enum(PROTECTED_VOICE_CATEGORIES),
  source_voice_id: z.string().nullable(),
  report_id: z.string().nullable(),
  has_sample: z.boolean(),
  created_by: z.string(),
  created_at: z.string(),
});
export const ProtectedVoiceList = z.object({
  items: z.array(ProtectedVoice),
  total: z.number().int(),
  page: z.number().int(),
  page_size: z.number().int(),
});
export const ProtectedVoiceRemoveQuery = z.object({ reason: OperatorReason });
