import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { ErrorBody, SettingsResponse } from '@polyvox/contracts';
import type { Database } from '../platform/db/schema.js';
import { OperatorSettingsPatch, type OperatorSettings, type OperatorSettingsStore } from '../platform/settings.js';
import { VersionConflict, type SettingsSnapshot } from '../platform/runtime-settings.js';
import { auditFrom, operatorOf } from '../http/auth.js';
import { AppError } from '../platform/errors.js';
import type { AuditTrail } from '../audit/trail.js';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 409: ErrorBody };

/** The settings' entity tag: their version (bumped by every change). */
const etagOf = (version: number) => `"settings-v${version}"`;

/** The version an `If-Match` names (`"settings-v3"`, weak or not); undefined without the header. */
function expectedVersion(header: string | undefined): number | undefined {
  if (header === undefined) return undefined;
  const m = /^\s*(?:W\/)?"settings-v(\d{1,12})"\s*$/.exec(header);
  if (!m) throw new AppError('VALIDATION_FAILED', { field: 'If-Match', rule: 'must be the ETag the settings were read with' });
  return Number(m[1]);
}

export interface SettingsRoutesDeps {
  db: Kysely<Database>;
  settings: OperatorSettingsStore;
  audit: AuditTrail;
}

function view(s: SettingsSnapshot<OperatorSettings>, starting: OperatorSettings) {
  return {
    values: s.values,
    starting,
    overrides: s.overrides as Record<string, number | string | boolean>,
    version: s.version,
    updated_at: s.updatedAt,
    updated_by: s.updatedBy,
  };
}

/**
 * The settings an operator changes while running (issue 30, point 9): read and changed under `settings.manage`,
 * each value checked by the rule the start-up applies to its environment variable (the body's schema is built from
 * config.ts's), the change audited with the keys' values before and after, in force on every process within the
 * settings cache's life (platform/runtime-settings.ts).
 */
export function settingsRoutes(deps: SettingsRoutesDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/admin/api/settings',
      {
        config: { auth: 'operator', permission: 'settings.manage' },
        schema: {
          tags: ['operator'],
          summary: 'Runtime settings: in force, as started, and those set in the console',
          response: { 200: SettingsResponse, ...errors },
        },
      },
      async (_request, reply) => {
        const s = await deps.settings.refresh();
        void reply.header('etag', etagOf(s.version));
        return view(s, deps.settings.base);
      },
    );

    app.patch(
      '/admin/api/settings',
      {
        config: { auth: 'operator', permission: 'settings.manage' },
        schema: {
          tags: ['operator'],
          summary: 'Change runtime settings (each checked as at start-up); in force on every process within seconds',
          description:
            'With `If-Match` (the ETag `GET` answered), a change made since is not overwritten: 409 `VALIDATION_FAILED` (reason `stale`) with the current ETag; reload and apply the change again. Without it the change applies to whatever is stored.',
          headers: z.object({ 'if-match': z.string().max(64).optional() }).passthrough(),
          body: OperatorSettingsPatch,
          response: { 200: SettingsResponse, ...errors },
        },
      },
      async (request, reply) => {
        const operator = operatorOf(request);
        const patch = request.body as Partial<OperatorSettings>;
        const expect = expectedVersion(request.headers['if-match']);
        // A change stored since the operator's copy (its If-Match) is not overwritten: 409, with the current ETag.
        const stale = async (e: unknown): Promise<never> => {
          if (!(e instanceof VersionConflict)) throw e;
          const now = await deps.settings.refresh();
          throw new AppError(
            'VALIDATION_FAILED',
            { field: 'If-Match', reason: 'stale', version: now.version },
            { status: 409, headers: { etag: etagOf(now.version) } },
          );
        };
        await deps.db
          .transaction()
          .execute(async (trx) => {
            const { before, after } = await deps.settings.update(patch, operator.accountId, trx, expect);
            // Only the keys this change set, each with the value in force before it (an override or the starting one).
            const keys = Object.keys(patch) as (keyof OperatorSettings)[];
            const was = { ...deps.settings.base, ...before };
            const now = { ...deps.settings.base, ...after };
            await deps.audit.record(
              auditFrom(
                request,
                'setting.update',
                { type: 'settings', id: 'settings' },
                {
                  before: Object.fromEntries(keys.map((k) => [k, was[k]])),
                  after: Object.fromEntries(keys.map((k) => [k, now[k]])),
                },
              ),
              trx,
            );
          })
          .catch(stale);
        const s = await deps.settings.refresh();
        void reply.header('etag', etagOf(s.version));
        return view(s, deps.settings.base);
      },
    );
  };
}
