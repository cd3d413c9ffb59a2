// Preloaded (NODE_OPTIONS=--import) into the test runs on other Node versions by scripts/test-node-versions.mjs.
// better-sqlite3 is a V8 addon, built for one Node ABI; the install in node_modules keeps the build for the
// development Node. On another Node, its load is sent to the copy built for that Node's ABI, so the
// node_modules install is never touched. Nothing else is changed; without the variable this does nothing.
import path from 'node:path';

const binding = process.env.POLYVOX_BETTER_SQLITE3_BINDING;
if (binding) {
  const target = path.join('better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
  const dlopen = process.dlopen;
  process.dlopen = function (module, filename, ...rest) {
    const file = typeof filename === 'string' && filename.endsWith(target) ? binding : filename;
    return dlopen.call(this, module, file, ...rest);
  };
}
