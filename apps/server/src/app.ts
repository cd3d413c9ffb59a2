import type { Config } from './platform/config.js';
import type { BuiltApp } from './composition/context.js';
import type { BuildOverrides } from './composition/parts.js';
import { buildAll } from './roles/all.js';
import { buildApi } from './roles/api.js';
import { buildWorker } from './roles/worker.js';

export type { BuiltApp } from './composition/context.js';
export { openStorage } from './composition/resources.js';

/** The process for `config.ROLE`: everything in one (all), the public API (api), or a synthesis worker (worker). */
export async function buildApp(config: Config, overrides: BuildOverrides = {}): Promise<BuiltApp> {
  switch (config.ROLE) {
    case 'all':
      return buildAll(config, overrides);
    case 'api':
      return buildApi(config, overrides);
    case 'worker':
      return buildWorker(config, overrides);
  }
}
