import type { FastifyContextConfig, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/schema.js';

/**
 * What an operator route of a domain module needs from the operators' module (OPERATORS.md): who the operator is,
 * and the audit entry of what they changed, written in the change's transaction when there is one. The
 * composition passes the operators' module's own (`operatorOf`, the audit trail).
 */
export interface OperatorTools {
  operatorOf(request: FastifyRequest): { accountId: string; role: string };
  audit(
    request: FastifyRequest,
    action: string,
    target: { type: string; id: string },
    change: { before?: unknown; after?: unknown; reason?: string | null },
    trx?: Kysely<Database>,
  ): Promise<void>;
}

/** An operator route's `config`: the operator rule with the permission it needs (OPERATORS.md). */
export function operatorRoute(permission: string): FastifyContextConfig {
  return { auth: 'operator', permission } as unknown as FastifyContextConfig;
}
