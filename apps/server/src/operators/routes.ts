import { Readable } from 'node:stream';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import {
  AddOperatorRequest,
  AuditFilters,
  AuditList,
  AuditListQuery,
  ChangeRoleRequest,
  ErrorBody,
  FactorCode,
  FactorPassed,
  FactorStatusSchema,
  OperatorList,
  OperatorSchema,
  PasskeyOptions,
  PasskeyResponse,
  RemoveOperatorQuery,
  ROLE_PERMISSIONS,
  TotpEnrolment,
} from '@polyvox/contracts';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { Database } from '../platform/db/schema.js';
import { AuditReader, type AuditQuery, type AuditRow } from '../audit/trail.js';
import { auditActor, operatorOf } from '../http/auth.js';
import type { OperatorsService } from './service.js';
import type { SecondFactorService } from './factor.js';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody };
const tags = ['operator'];

export interface OperatorRoutesDeps {
  db: Kysely<Database>;
  operators: OperatorsService;
  factor: SecondFactorService;
}

const parseJson = (text: string | null): unknown => (text === null ? null : (JSON.parse(text) as unknown));
const entryView = (r: AuditRow) => ({ ...r, before: parseJson(r.before), after: parseJson(r.after) });

/** A CSV field: quoted when it holds a comma, quote or line break; a leading = + - @ is defused for spreadsheets. */
function csvField(value: string | null): string {
  if (value === null) return '';
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}
export const AUDIT_CSV_COLUMNS = [
  'id',
  'at',
  'operator_id',
  'operator_role',
  'action',
  'target_type',
  'target_id',
  'before',
  'after',
  'reason',
  'request_id',
  'ip',
] as const;

function auditQuery(q: z.infer<typeof AuditFilters>): AuditQuery {
  return { operator: q.operator, action: q.action, targetType: q.target_type, targetId: q.target_id, from: q.since, to: q.until };
}

/** The operator console's own routes: the second factor, the operators (owner only) and the audit trail. */
export function operatorRoutes(deps: OperatorRoutesDeps): FastifyPluginAsyncZod {
  const reader = new AuditReader(deps.db);
  return async (app) => {
    const emailOf = async (accountId: string) =>
      (await deps.db.selectFrom('accounts').select('email').where('id', '=', accountId).executeTakeFirst())?.email ?? null;

    app.get(
      '/admin/api/auth/status',
      {
        config: { auth: 'operator-factor' },
        schema: {
          tags,
          summary: "The operator's role, permissions and second factor: set up, passed, until when",
          response: { 200: FactorStatusSchema, ...errors },
        },
      },
      async (request) => {
        const op = operatorOf(request);
        const status = await deps.factor.status(op);
        return { ...status, permissions: [...ROLE_PERMISSIONS[op.role]], email: await emailOf(op.accountId) };
      },
    );

    app.post(
      '/admin/api/auth/totp/enrol',
      {
        config: { auth: 'operator-factor' },
        schema: {
          tags,
          summary: 'Start setting up an authenticator app: its secret, QR code URI and ten recovery codes (shown once)',
          description:
            'Open to an operator with no second factor yet, or to a session that passed one. The codes take effect once `/admin/api/auth/totp/confirm` accepts a first code.',
          response: { 200: TotpEnrolment, ...errors },
        },
      },
      async (request) => {
        const op = operatorOf(request);
        return deps.factor.enrolTotp(op, (await emailOf(op.accountId)) ?? op.accountId);
      },
    );

    app.post(
      '/admin/api/auth/totp/confirm',
      {
        config: { auth: 'operator-factor' },
        schema: {
          tags,
          summary: 'Confirm the authenticator app with a first code: this session passes the second factor',
          body: FactorCode,
          response: { 200: FactorPassed, ...errors },
        },
      },
      async (request) => deps.factor.confirmTotp(operatorOf(request), request.body.code, auditActor(request)),
    );

    app.post(
      '/admin/api/auth/verify',
      {
        config: { auth: 'operator-factor' },
        schema: {
          tags,
          summary: 'Pass the second factor with a code from the authenticator app (valid 12 hours)',
          body: FactorCode,
          response: { 200: FactorPassed, ...errors },
        },
      },
      async (request) => deps.factor.verifyTotp(operatorOf(request), request.body.code, auditActor(request)),
    );

    app.post(
      '/admin/api/auth/recovery',
      {
        config: { auth: 'operator-factor' },
        schema: {
          tags,
          summary: 'Pass the second factor with a recovery code (each works once)',
          body: FactorCode,
          response: { 200: FactorPassed, ...errors },
        },
      },
      async (request) => deps.factor.useRecoveryCode(operatorOf(request), request.body.code, auditActor(request)),
    );

    app.post(
      '/admin/api/auth/passkey/register/options',
      {
        config: { auth: 'operator-factor' },
        schema: { tags, summary: 'Options to create a passkey (WebAuthn)', response: { 200: PasskeyOptions, ...errors } },
      },
      async (request) => {
        const op = operatorOf(request);
        return deps.factor.passkeyRegistrationOptions(op, (await emailOf(op.accountId)) ?? op.accountId, request.headers.origin);
      },
    );

    app.post(
      '/admin/api/auth/passkey/register/verify',
      {
        config: { auth: 'operator-factor' },
        schema: {
          tags,
          summary: 'Save the passkey just created: this session passes the second factor',
          body: PasskeyResponse,
          response: { 200: FactorPassed, ...errors },
        },
      },
      async (request) =>
        deps.factor.passkeyRegister(
          operatorOf(request),
          request.body as unknown as RegistrationResponseJSON,
          auditActor(request),
        ),
    );

    app.post(
      '/admin/api/auth/passkey/authenticate/options',
      {
        config: { auth: 'operator-factor' },
        schema: {
          tags,
          summary: "Options to sign with one of the operator's passkeys",
          response: { 200: PasskeyOptions, ...errors },
        },
      },
      async (request) => deps.factor.passkeyAuthenticationOptions(operatorOf(request), request.headers.origin),
    );

    app.post(
      '/admin/api/auth/passkey/authenticate/verify',
      {
        config: { auth: 'operator-factor' },
        schema: {
          tags,
          summary: 'Pass the second factor with a passkey',
          body: PasskeyResponse,
          response: { 200: FactorPassed, ...errors },
        },
      },
      async (request) =>
        deps.factor.passkeyAuthenticate(
          operatorOf(request),
          request.body as unknown as AuthenticationResponseJSON,
          auditActor(request),
        ),
    );

    app.post(
      '/admin/api/auth/leave',
      {
        config: { auth: 'operator-factor' },
        schema: { tags, summary: "End this session's second factor (the console locks)", response: { 204: z.null(), ...errors } },
      },
      async (request, reply) => {
        await deps.factor.leave(operatorOf(request));
        return reply.code(204).send(null);
      },
    );

    app.get(
      '/admin/api/operators',
      {
        config: { auth: 'operator', permission: 'operators.manage' },
        schema: { tags, summary: 'The operators and their roles', response: { 200: OperatorList, ...errors } },
      },
      async () => ({ items: await deps.operators.list() }),
    );

    app.post(
      '/admin/api/operators',
      {
        config: { auth: 'operator', permission: 'operators.manage' },
        schema: {
          tags,
          summary: 'Name the account of an email an operator in a role',
          body: AddOperatorRequest,
          response: { 201: OperatorSchema, ...errors },
        },
      },
      async (request, reply) => {
        const made = await deps.operators.add(request.body.email, request.body.role, auditActor(request), request.body.reason);
        return reply.code(201).send(made);
      },
    );

    app.put(
      '/admin/api/operators/:accountId',
      {
        config: { auth: 'operator', permission: 'operators.manage' },
        schema: {
          tags,
          summary: "Change an operator's role (their elevated sessions end)",
          params: z.object({ accountId: z.string().min(1).max(64) }),
          body: ChangeRoleRequest,
          response: { 200: OperatorSchema, ...errors },
        },
      },
      async (request) =>
        deps.operators.changeRole(request.params.accountId, request.body.role, auditActor(request), request.body.reason),
    );

    app.delete(
      '/admin/api/operators/:accountId',
      {
        config: { auth: 'operator', permission: 'operators.manage' },
        schema: {
          tags,
          summary: 'Remove an operator (the account stays; their elevated sessions end)',
          params: z.object({ accountId: z.string().min(1).max(64) }),
          querystring: RemoveOperatorQuery,
          response: { 204: z.null(), ...errors },
        },
      },
      async (request, reply) => {
        await deps.operators.remove(request.params.accountId, auditActor(request), request.query.reason);
        return reply.code(204).send(null);
      },
    );

    app.get(
      '/admin/api/audit',
      {
        config: { auth: 'operator', permission: 'audit.read' },
        schema: {
          tags,
          summary: 'The audit trail, filtered, by page (newest first unless order=asc)',
          querystring: AuditListQuery,
          response: { 200: AuditList, ...errors },
        },
      },
      async (request) => {
        const { page, page_size, order, ...filters } = request.query;
        const { items, total } = await reader.page(auditQuery(filters), page, page_size, order);
        return { items: items.map(entryView), total, page, page_size };
      },
    );

    app.get(
      '/admin/api/audit/export',
      {
        config: { auth: 'operator', permission: 'audit.read' },
        schema: {
          tags,
          summary: 'The audit trail as CSV (the same filters), oldest first',
          querystring: AuditFilters,
          response: { 200: z.string().describe('text/csv'), ...errors },
        },
      },
      async (request, reply) => {
        // Streamed: each page of rows (read by keyset, `reader.all`) is written as it comes, chunked; the trail is never
        // held whole. A failure after the first rows cuts the response short (the client sees a broken transfer).
        const query = auditQuery(request.query);
        async function* csv(): AsyncGenerator<string> {
          yield `${AUDIT_CSV_COLUMNS.join(',')}\r\n`;
          for await (const rows of reader.all(query))
            yield rows.map((row) => `${AUDIT_CSV_COLUMNS.map((c) => csvField(row[c])).join(',')}\r\n`).join('');
        }
        return reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', 'attachment; filename="audit.csv"')
          .send(Readable.from(csv(), { objectMode: false }) as never);
      },
    );
  };
}
