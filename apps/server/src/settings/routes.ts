import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Kysely } from 'kysely';
import { ErrorBody, SettingsResponse } from '@polyvox/contracts';
import type { Database } from '../platform/db/schema.js';
import { OperatorSettingsPatch, type OperatorSettings, type OperatorSettingsStore } from '../platform/settings.js';
import type { SettingsSnapshot } from '../platform/runtime-settings.js';
import { auditFrom, operatorOf } from '../http/auth.js';
import type { AuditTrail } from '../audit/trail.js';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody };

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
      async () => view(await deps.settings.refresh(), deps.settings.base),
    );

    app.patch(
      '/admin/api/settings',
      {
        config: { auth: 'operator', permission: 'settings.manage' },
        schema: {
          tags: ['operator'],
          summary: 'Change runtime settings (each checked as at start-up); in force on every process within seconds',
          body: OperatorSettingsPatch,
          response: { 200: SettingsResponse, ...errors },
        },
      },
      async (request) => {
        const operator = operatorOf(request);
        const patch = request.body as Partial<OperatorSettings>;
        await deps.db.transaction().execute(async (trx) => {
          const { before, after } = await deps.settings.update(patch, operator.accountId, trx);
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
        });
        return view(await deps.settings.refresh(), deps.settings.base);
      },
    );
  };
}
