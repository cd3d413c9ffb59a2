/**
 * The environment a test gives a server process it starts: PATH and HOME, and what the test runner set to run on
 * another Node version (scripts/test-node-versions.mjs: NODE_OPTIONS preloading scripts/native-shim.mjs, and
 * POLYVOX_BETTER_SQLITE3_BINDING, the SQLite driver built for that Node). Without those two, a child on Node 22 would
 * load the driver built for the development Node and exit at start.
 */
export function childEnv(): Record<string, string> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };
  for (const name of ['NODE_OPTIONS', 'POLYVOX_BETTER_SQLITE3_BINDING']) {
    const value = process.env[name];
    if (value) env[name] = value;
  }
  return env;
}
