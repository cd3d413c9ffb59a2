import { z } from 'zod';
import { OPERATOR_PERMISSIONS, OPERATOR_ROLES } from './operators.js';

/** Shapes of the operator console's own routes (`/admin/api/auth/…`, `/admin/api/operators`, `/admin/api/audit`). */

const role = z.enum(OPERATOR_ROLES);
const reason = z.string().trim().max(500).optional().describe('why (kept in the audit trail)');

export const FactorStatusSchema = z
  .object({
    role,
    permissions: z.array(z.enum(OPERATOR_PERMISSIONS)),
    email: z.string().nullable(),
    elevated: z.boolean().describe('the session passed the second factor'),
    expires_at: z.string().nullable().describe('when the elevated session ends'),
    totp: z.boolean().describe('an authenticator app is set up'),
    passkeys: z.number().int(),
    recovery_codes_left: z.number().int(),
  })
  .meta({ id: 'OperatorFactorStatus' });
export type FactorStatus = z.infer<typeof FactorStatusSchema>;

export const TotpEnrolment = z.object({
  secret: z.string().describe('the TOTP secret (base32), for an app that cannot scan'),
  otpauth_uri: z.string().describe('otpauth:// URI for the QR code'),
  recovery_codes: z.array(z.string()).describe('ten one-time recovery codes, shown this once'),
});
export type TotpEnrolment = z.infer<typeof TotpEnrolment>;

export const FactorCode = z.object({ code: z.string().trim().min(1).max(32) });
export const FactorPassed = z.object({
  expires_at: z.string(),
  recovery_codes_left: z.number().int().optional(),
});

/** A WebAuthn response as @simplewebauthn/browser gives it; checked by @simplewebauthn/server. */
export const PasskeyResponse = z.object({
  id: z.string().min(1).max(1024),
  rawId: z.string().min(1).max(1024),
  type: z.literal('public-key'),
  response: z.record(z.string(), z.unknown()),
  clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
  authenticatorAttachment: z.string().optional(),
});
export const PasskeyOptions = z.record(z.string(), z.unknown()).describe('PublicKeyCredential options (JSON)');

export const OperatorSchema = z
  .object({
    account_id: z.string(),
    email: z.string().nullable(),
    role,
    created_at: z.string(),
    created_by: z.string().nullable(),
    totp: z.boolean(),
    passkeys: z.number().int(),
  })
  .meta({ id: 'Operator' });
export type Operator = z.infer<typeof OperatorSchema>;
export const OperatorList = z.object({ items: z.array(OperatorSchema) });
export const AddOperatorRequest = z.object({ email: z.string().trim().min(3).max(254), role, reason });
export const ChangeRoleRequest = z.object({ role, reason });
export const RemoveOperatorQuery = z.object({ reason });

export const AuditEntrySchema = z
  .object({
    id: z.string(),
    at: z.string(),
    operator_id: z.string(),
    operator_role: z.string(),
    action: z.string(),
    target_type: z.string(),
    target_id: z.string(),
    before: z.unknown().nullable(),
    after: z.unknown().nullable(),
    reason: z.string().nullable(),
    request_id: z.string(),
    ip: z.string(),
  })
  .meta({ id: 'AuditEntry' });
export type AuditEntryView = z.infer<typeof AuditEntrySchema>;

const isoTime = z.iso.datetime({ offset: true }).or(z.iso.date());
export const AuditFilters = z.object({
  operator: z.string().max(64).optional().describe('operator account id'),
  action: z.string().max(64).optional().describe('an action, or an area with its dot (`credits.`)'),
  target_type: z.string().max(64).optional(),
  target_id: z.string().max(128).optional(),
  since: isoTime.optional().describe('from this time (inclusive)'),
  until: isoTime.optional().describe('until this time (exclusive)'),
});
export const AuditListQuery = AuditFilters.extend({
  page: z.coerce.number().int().min(1).max(100_000).default(1),
  page_size: z.coerce.number().int().min(1).max(200).default(50),
  order: z.enum(['asc', 'desc']).default('desc'),
});
export const AuditList = z.object({
  items: z.array(AuditEntrySchema),
  total: z.number().int(),
  page: z.number().int(),
  page_size: z.number().int(),
});
