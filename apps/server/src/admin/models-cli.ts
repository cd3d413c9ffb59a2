/**
 * `npm run models -- list | add NAME | remove NAME | verify`: the catalogue's text-to-speech models
 * (apps/server/content/models-catalogue.json), installed into MODELS_DIR (unset: DATA_DIR/models, where the
 * server looks by default). MODELS_MIRROR replaces the
 * official release servers. A running server picks a model added or removed up by itself (it polls
 * MODELS_DIR); nothing else needs to be told.
 */
import { pathToFileURL } from 'node:url';
import { ConfigError, loadConfig } from '../platform/config.js';
import { CatalogueError, loadCatalogue, type Catalogue } from '../models/catalogue.js';
import { InstallError, progressTo } from '../models/download.js';
import { addModel, listCatalogue, removeModel, verifyModels, type ModelsContext, type ModelsIo } from '../models/install.js';

export const EXIT = { ok: 0, refused: 1, usage: 2 } as const;

const USAGE = `Usage: npm run models -- <command>
  list           the catalogue's models: family, languages, voices, size, licence; * marks those installed
  add <name>     download (resuming an interrupted download), check its size and SHA-256, unpack and install a model
                 into MODELS_DIR; its licence is shown first and stored with it
  remove <name>  delete an installed model
  verify         re-check the digests recorded at install and each model's layout
Settings: MODELS_DIR (where models live; unset: DATA_DIR/models, which the server reads by default), MODELS_MIRROR (a base URL to download from instead of the official releases)`;

export interface ModelsOptions {
  catalogue?: Catalogue;
}

export async function runModels(
  argv: string[],
  env: Record<string, string | undefined>,
  io: ModelsIo,
  options: ModelsOptions = {},
): Promise<number> {
  const [command, ...args] = argv;
  const arity = new Map([
    ['list', 0],
    ['add', 1],
    ['remove', 1],
    ['verify', 0],
  ]);
  if (!command || !arity.has(command) || args.length !== arity.get(command)) {
    io.err(USAGE);
    return EXIT.usage;
  }
  let ctx: ModelsContext;
  try {
    const config = loadConfig(env);
    ctx = {
      modelsDir: config.MODELS_DIR,
      catalogue: options.catalogue ?? loadCatalogue(),
      io,
      ...(config.MODELS_MIRROR ? { mirror: config.MODELS_MIRROR } : {}),
    };
  } catch (e) {
    if (e instanceof ConfigError || e instanceof CatalogueError) {
      io.err(e.message);
      return EXIT.usage;
    }
    throw e;
  }
  try {
    if (command === 'list') listCatalogue(ctx);
    else if (command === 'add') await addModel(ctx, args[0]!);
    else if (command === 'remove') removeModel(ctx, args[0]!);
    else return (await verifyModels(ctx)) ? EXIT.refused : EXIT.ok;
    return EXIT.ok;
  } catch (e) {
    if (!(e instanceof InstallError)) throw e;
    io.err(e.message);
    return EXIT.refused;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const io: ModelsIo = {
    out: (l) => console.log(l),
    err: (l) => console.error(l),
    progress: progressTo((s) => process.stderr.write(s), process.stderr.isTTY === true),
  };
  runModels(process.argv.slice(2), process.env, io).then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
