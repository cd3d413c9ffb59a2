import type { Config } from '../platform/config.js';
import type { BuiltApp } from '../composition/context.js';
import { openParts, type BuildOverrides } from '../composition/parts.js';
import { createServer } from '../composition/server.js';
import { serveApi } from '../composition/api.js';
import { buildApiServices, closeApiServices } from '../composition/api-services.js';

/** ROLE=all: one process serves the API and synthesizes itself, taking over the jobs of processes that died. */
export async function buildAll(config: Config, overrides: BuildOverrides = {}): Promise<BuiltApp> {
  const app = createServer(config, overrides.logStream);
  const ctx = await openParts(app, config, { build: buildApiServices, close: closeApiServices }, overrides);
  await serveApi(app, ctx, { embedded: true });
  return { role: 'all', app, ctx };
}
