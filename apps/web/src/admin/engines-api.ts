import type { z } from 'zod';
import type {
  CreateProviderRequest,
  EnginesResponse,
  InstallSchema,
  ModelsResponse,
  ProviderSchema,
  ProvidersResponse,
  SettingsResponse,
  UpdateProviderRequest,
} from '@polyvox/contracts';
import { http } from '../api/client';

export type Engines = z.infer<typeof EnginesResponse>;
export type Models = z.infer<typeof ModelsResponse>;
export type Install = z.infer<typeof InstallSchema>;
export type Provider = z.infer<typeof ProviderSchema>;
export type Providers = z.infer<typeof ProvidersResponse>;
export type Settings = z.infer<typeof SettingsResponse>;
export type SettingValue = number | string | boolean;

const id = (s: string) => encodeURIComponent(s);

/** The Engines and Settings pages' calls (`/admin/api/…`). */
export const enginesApi = {
  engines: () => http<Engines>('GET', '/admin/api/engines'),
  models: () => http<Models>('GET', '/admin/api/models'),
  install: (name: string, confirmNonCommercial: boolean) =>
    http<Install>('POST', '/admin/api/models/installs', {
      json: { name, ...(confirmNonCommercial ? { confirm_non_commercial: true } : {}) },
    }),
  installJob: (jobId: string) => http<Install>('GET', `/admin/api/models/installs/${id(jobId)}`),
  removeModel: (name: string) => http<{ removed: string }>('DELETE', `/admin/api/models/${id(name)}`),
  providers: () => http<Providers>('GET', '/admin/api/providers'),
  addProvider: (body: z.input<typeof CreateProviderRequest>) => http<Provider>('POST', '/admin/api/providers', { json: body }),
  editProvider: (providerId: string, body: z.input<typeof UpdateProviderRequest>) =>
    http<Provider>('PATCH', `/admin/api/providers/${id(providerId)}`, { json: body }),
  enableProvider: (providerId: string, enabled: boolean) =>
    http<Provider>('PUT', `/admin/api/providers/${id(providerId)}/enabled`, { json: { enabled } }),
  testProvider: (providerId: string) => http<Provider>('POST', `/admin/api/providers/${id(providerId)}/test`),
  deleteProvider: (providerId: string) => http<{ deleted: string }>('DELETE', `/admin/api/providers/${id(providerId)}`),
  settings: () => http<Settings>('GET', '/admin/api/settings'),
  /** Saved only over the version it was prepared from: a change made since answers 409 (`reason: stale`). */
  saveSettings: (patch: Record<string, SettingValue>, version: number) =>
    http<Settings>('PATCH', '/admin/api/settings', { json: patch, ifMatch: `"settings-v${version}"` }),
};
