import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import {
  CreateProviderRequest,
  EnginesResponse,
  ErrorBody,
  InstallIdParams,
  InstallRequest,
  InstallSchema,
  ModelNameParams,
  ModelsResponse,
  ProviderEnabledRequest,
  ProviderIdParams,
  ProviderSchema,
  ProvidersResponse,
  UpdateProviderRequest,
} from '@polyvox/contracts';
import type { Database } from '../platform/db/schema.js';
import { AppError } from '../platform/errors.js';
import { auditFrom, operatorOf } from '../http/auth.js';
import { requestLocale } from '../http/locale.js';
import { providerIn } from '../providers/test-messages.js';
import type { AuditTrail } from '../audit/trail.js';
import type { ModelInstalls } from '../models/installs.js';
import type { ProviderSync, ProvidersService } from '../providers/service.js';
import type { SpeechHost } from '../speech/speech-host.js';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };
const manage = { auth: 'operator', permission: 'engines.manage' } as const;

export interface EngineRoutesDeps {
  db: Kysely<Database>;
  speech: SpeechHost;
  installs: ModelInstalls;
  modelsDir: string;
  providers: ProvidersService;
  providerSync: ProviderSync;
  audit: AuditTrail;
}

/**
 * The operator's engines, models and remote providers (issue 30, point 8), under `engines.manage`; every change
 * audited. Models install in the background (the console polls the install); providers' keys are sealed and never
 * answered; a provider change is applied to this process's engines at once and to the others' within seconds.
 */
export function engineRoutes(deps: EngineRoutesDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/admin/api/engines',
      {
        config: manage,
        schema: {
          tags: ['operator'],
          summary: 'The speech engines with their models, voices and health',
          response: { 200: EnginesResponse, ...errors },
        },
      },
      async () => {
        const speech = await deps.speech.get();
        const models = speech.listModels();
        const voices = speech.listVoices();
        const down = new Map(speech.unavailable.map((u) => [u.provider, u]));
        const ids = [...new Set([...models.map((m) => m.engine), ...down.keys()])];
        return {
          started: speech.enginesStarted,
          engines: ids.map((id) => {
            const problem = down.get(id);
            return {
              id,
              kind: id === 'openai' || id === 'elevenlabs' ? ('remote' as const) : ('local' as const),
              models: models.filter((m) => m.engine === id).length,
              voices: voices.filter((v) => v.engine === id).length,
              status: problem ? ('unavailable' as const) : ('ok' as const),
              message: problem ? `${problem.code}: ${problem.message}` : null,
            };
          }),
          model_problems: speech.modelProblems.map((p) => ({ folder: p.folder, message: p.message })),
        };
      },
    );

    app.get(
      '/admin/api/models',
      {
        config: manage,
        schema: {
          tags: ['operator'],
          summary: 'Models in MODELS_DIR with their licences, the catalogue, and the latest installs',
          response: { 200: ModelsResponse, ...errors },
        },
      },
      async (request) => ({
        models_dir: deps.modelsDir,
        installed: deps.installs.listInstalled(),
        catalogue: deps.installs.listCatalogue(),
        installs: await deps.installs.list(requestLocale(request)),
      }),
    );

    app.post(
      '/admin/api/models/installs',
      {
        config: manage,
        schema: {
          tags: ['operator'],
          summary:
            "Install a catalogue model in the background (poll the install); a non-commercial licence needs an owner's confirmation",
          body: InstallRequest,
          response: { 202: InstallSchema, ...errors },
        },
      },
      async (request, reply) => {
        const operator = operatorOf(request);
        const model = deps.installs.model(request.body.name);
        const confirmed = request.body.confirm_non_commercial === true;
        if (!model.licence.commercial && !(confirmed && operator.role === 'owner'))
          throw new AppError('FORBIDDEN', { reason: 'licence_confirm' });
        const job = await deps.db.transaction().execute(async (trx) => {
          const started = await deps.installs.start(model.name, operator.accountId, trx);
          await deps.audit.record(
            auditFrom(
              request,
              'model.install',
              { type: 'model', id: model.name },
              {
                after: {
                  install: started.id,
                  licence: model.licence.name,
                  commercial: model.licence.commercial,
                  ...(model.licence.commercial ? {} : { confirmed_non_commercial: true }),
                },
              },
            ),
            trx,
          );
          return started;
        });
        void deps.installs.run(job);
        return reply.status(202).send(job);
      },
    );

    app.get(
      '/admin/api/models/installs/:id',
      {
        config: manage,
        schema: {
          tags: ['operator'],
          summary: "An install's progress",
          params: InstallIdParams,
          response: { 200: InstallSchema, ...errors },
        },
      },
      async (request) => deps.installs.get(request.params.id, requestLocale(request)),
    );

    app.delete(
      '/admin/api/models/:name',
      {
        config: manage,
        schema: {
          tags: ['operator'],
          summary: 'Remove an installed model; every process drops its voices within seconds',
          params: ModelNameParams,
          response: { 200: z.object({ removed: z.string() }), ...errors },
        },
      },
      async (request) => {
        const removed = deps.installs.remove(request.params.name);
        await deps.audit.record(auditFrom(request, 'model.remove', { type: 'model', id: removed.name }, { before: removed }));
        // This process drops its voices now rather than at its next poll.
        if (deps.speech.started) (await deps.speech.get()).rescanModels();
        return { removed: removed.name };
      },
    );

    app.get(
      '/admin/api/providers',
      {
        config: manage,
        schema: {
          tags: ['operator'],
          summary: 'Remote providers (keys never answered: their last four characters only); the kinds the environment sets win',
          response: { 200: ProvidersResponse, ...errors },
        },
      },
      async (request) => ({
        items: (await deps.providers.list()).map((p) => providerIn(p, requestLocale(request))),
        env: deps.providers.envKinds(),
      }),
    );

    app.post(
      '/admin/api/providers',
      {
        config: manage,
        schema: {
          tags: ['operator'],
          summary: 'Add a remote provider (disabled until enabled); its key is stored encrypted',
          body: CreateProviderRequest,
          response: { 201: ProviderSchema, ...errors },
        },
      },
      async (request, reply) => {
        const created = await deps.db.transaction().execute(async (trx) => {
          const p = await deps.providers.create(request.body, trx);
          await deps.audit.record(auditFrom(request, 'provider.create', { type: 'provider', id: p.id }, { after: p }), trx);
          return p;
        });
        return reply.status(201).header('cache-control', 'no-store').send(created);
      },
    );

    app.patch(
      '/admin/api/providers/:id',
      {
        config: manage,
        schema: {
          tags: ['operator'],
          summary: 'Edit a provider (a key given replaces the stored one)',
          params: ProviderIdParams,
          body: UpdateProviderRequest,
          response: { 200: ProviderSchema, ...errors },
        },
      },
      async (request) => {
        const { after } = await deps.db.transaction().execute(async (trx) => {
          const change = await deps.providers.update(request.params.id, request.body, trx);
          await deps.audit.record(
            auditFrom(
              request,
              'provider.update',
              { type: 'provider', id: request.params.id },
              {
                ...change,
                after: { ...change.after, key_replaced: request.body.key !== undefined },
              },
            ),
            trx,
          );
          return change;
        });
        await deps.providerSync.sync();
        return providerIn(after, requestLocale(request));
      },
    );

    app.put(
      '/admin/api/providers/:id/enabled',
      {
        config: manage,
        schema: {
          tags: ['operator'],
          summary: 'Enable (turning off the other of its kind) or disable a provider; in force on every process within seconds',
          params: ProviderIdParams,
          body: ProviderEnabledRequest,
          response: { 200: ProviderSchema, ...errors },
        },
      },
      async (request) => {
        const { enabled } = request.body;
        const { after } = await deps.db.transaction().execute(async (trx) => {
          const change = await deps.providers.setEnabled(request.params.id, enabled, trx);
          await deps.audit.record(
            auditFrom(
              request,
              enabled ? 'provider.enable' : 'provider.disable',
              { type: 'provider', id: request.params.id },
              {
                before: change.before,
                after: { ...change.after, ...(change.disabled.length ? { disabled_others: change.disabled } : {}) },
              },
            ),
            trx,
          );
          return change;
        });
        await deps.providerSync.sync();
        return providerIn(after, requestLocale(request));
      },
    );

    app.post(
      '/admin/api/providers/:id/test',
      {
        config: manage,
        schema: {
          tags: ['operator'],
          summary: 'Call the provider once with its stored key (OpenAI-compatible: one word; ElevenLabs: its voices)',
          params: ProviderIdParams,
          response: { 200: ProviderSchema, ...errors },
        },
      },
      async (request) => {
        const { before, after } = await deps.providers.test(request.params.id, AbortSignal.timeout(30_000));
        await deps.audit.record(
          auditFrom(
            request,
            'provider.test',
            { type: 'provider', id: request.params.id },
            // The trail keeps the outcome in English.
            { before: providerIn(before, 'en').last_test, after: providerIn(after, 'en').last_test },
          ),
        );
        return providerIn(after, requestLocale(request));
      },
    );

    app.delete(
      '/admin/api/providers/:id',
      {
        config: manage,
        schema: {
          tags: ['operator'],
          summary: 'Delete a provider (its sealed key with it)',
          params: ProviderIdParams,
          response: { 200: z.object({ deleted: z.string() }), ...errors },
        },
      },
      async (request) => {
        await deps.db.transaction().execute(async (trx) => {
          const before = await deps.providers.remove(request.params.id, trx);
          await deps.audit.record(auditFrom(request, 'provider.delete', { type: 'provider', id: before.id }, { before }), trx);
        });
        await deps.providerSync.sync();
        return { deleted: request.params.id };
      },
    );
  };
}
