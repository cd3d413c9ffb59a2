import type { FastifyInstance } from 'fastify';
import { LIMITS } from '@polyvox/contracts';
import { ConfigError, type Config } from '../platform/config.js';
import type { Db } from '../platform/db/database.js';
import type { Mailer } from '../platform/mail.js';
import { loadSensitiveWords, type SensitiveWordsReload } from '../platform/sensitive-words.js';
import { readProductsFile } from '../orders/products.js';
import { CatalogueStore } from '../orders/catalogue-store.js';
import type { WorkerContext } from './context.js';
import {
  broadcastResource,
  databaseResource,
  openResource,
  queuesResource,
  redisResource,
  speechResource,
  storageResource,
  type Resource,
} from './resources.js';
import type { ServiceParts } from './core-services.js';
import { C2paFileSigner } from '../provenance/c2pa-signer.js';

export interface BuildOverrides {
  mailer?: Mailer;
  db?: Db;
  logStream?: NodeJS.WritableStream;
}

/** The sensitive-word lists; one that cannot be read stops the start with the setting's name. */
function loadWordLists(files: string[], reload: SensitiveWordsReload) {
  try {
    return loadSensitiveWords(files, reload);
  } catch (err) {
    throw new ConfigError(`Invalid configuration:\n  SENSITIVE_WORDS_FILES: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** How a role builds its services on the parts, and closes them (core-services.ts, api-services.ts). */
export interface ServicesBuilder<C extends WorkerContext> {
  build(config: Config, parts: ServiceParts, overrides: BuildOverrides): C;
  close(ctx: C): Promise<void>;
}

/** The services, a plugin too: closed before the resources they use, once their work in flight has drained. */
const servicesResource = <C extends WorkerContext>(
  config: Config,
  parts: ServiceParts,
  overrides: BuildOverrides,
  services: ServicesBuilder<C>,
): Resource<C> => ({
  name: 'services',
  open: () => services.build(config, parts, overrides),
  close: (ctx) => services.close(ctx),
});

/**
 * The parts every role is built from, opened in order on `app`: storage, the database, Redis, speech, the queues,
 * then the services the role builds. Fastify closes them in the reverse order.
 */
export async function openParts<C extends WorkerContext>(
  app: FastifyInstance,
  config: Config,
  services: ServicesBuilder<C>,
  overrides: BuildOverrides = {},
): Promise<C> {
  // Read first: a list or catalogue that cannot be read stops the start before anything is opened.
  const wordsReload: SensitiveWordsReload = {
    onReloadError: (err) =>
      app.log.warn({ err }, 'sensitive words: a changed list could not be read; the words read before stay in force'),
  };
  const words = loadWordLists(config.SENSITIVE_WORDS_FILES, wordsReload);
  const seed = readProductsFile(config.PRODUCTS_CONFIG);
  const storage = await openResource(app, storageResource(config));
  const db = await openResource(app, databaseResource(config, overrides.db));
  // The catalogue lives in the database; the file seeds what the table does not have yet.
  const products = await new CatalogueStore({ db: db.kysely, refreshMs: config.CATALOG_REFRESH_SECONDS * 1000 }).open(seed);
  const redis = await openResource(app, redisResource(config));
  const broadcast = await openResource(app, broadcastResource(config));
  const { speech, audioCache } = await openResource(app, speechResource(config, { redis, storage, products: products.latest() }));
  products.engineLimit = { maxTextLength: Math.max(LIMITS.maxTextLength, products.latest().maxTextLength) };
  const queues = await openResource(app, queuesResource(config));
  // The C2PA signer: its key and certificate made once in DATA_DIR (or the operator's), its thread started with
  // c2pa-rs loaded before any file, and ended with the app.
  const signer = await openResource(app, {
    name: 'c2pa-signer',
    open: () =>
      C2paFileSigner.open({
        dataDir: config.DATA_DIR,
        organization: config.AIGC_CONTENT_PRODUCER,
        ...(config.C2PA_CERT_FILE ? { certFile: config.C2PA_CERT_FILE } : {}),
        ...(config.C2PA_KEY_FILE ? { keyFile: config.C2PA_KEY_FILE } : {}),
      }),
    close: (s) => s.close(),
  });
  const parts = { db, storage, redis, broadcast, speech, audioCache, queues, words, wordsReload, products, signer, log: app.log };
  return openResource(app, servicesResource(config, parts, overrides, services));
}
