import type { Config } from '../platform/config.js';
import type { BuiltApp } from '../composition/context.js';
import { openParts, type BuildOverrides } from '../composition/parts.js';
import { createServer } from '../composition/server.js';
import { serveApi } from '../composition/api.js';
import { buildApiServices, closeApiServices } from '../composition/api-services.js';

/** ROLE=api: serves the API and hands synthesis to the workers through the queues in Redis; starts no engine. */
export async function buildApi(config: Config, overrides: BuildOverrides = {}): Promise<BuiltApp> {
  const app = createServer(config, overrides.logStream);
  const ctx = await openParts(app, config, { build: buildApiServices, close: closeApiServices }, overrides);
  await serveApi(app, ctx, { embedded: false });
  return { role: 'api', app, ctx };
}
