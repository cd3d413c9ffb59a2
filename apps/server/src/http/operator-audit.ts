import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/schema.js';

/**
 * What an operator route needs of the audit trail (OPERATORS.md: `AuditTrail`, kept by the audit module): one entry
 * per change, written in the change's own transaction where it has one.
 */
export interface OperatorAuditEntry {
  operator: { accountId: string; role: string };
  action: string;
  target: { type: string; id: string };
  before?: unknown;
  after?: unknown;
  reason?: string | null;
  requestId: string;
  ip: string;
}

export interface OperatorAudit {
  record(entry: OperatorAuditEntry, db?: Kysely<Database>): Promise<void>;
}
