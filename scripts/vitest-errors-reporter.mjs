// A vitest reporter that keeps the errors vitest's JSON report leaves out: a suite's hook that failed (a beforeAll
// that threw or timed out marks its tests skipped and its file failed, with no message), a file's own error, and
// errors no test caught. They land beside the JSON report (<report>.errors.json) for scripts/test.mjs's summary.
import fs from 'node:fs';
import path from 'node:path';

export default class ErrorsReporter {
  onInit(vitest) {
    const json =
      vitest.config.outputFile?.json ?? (typeof vitest.config.outputFile === 'string' ? vitest.config.outputFile : undefined);
    this.out = json ? path.resolve(vitest.config.root, json.replace(/\.json$/, '') + '.errors.json') : undefined;
    if (this.out) fs.rmSync(this.out, { force: true });
  }

  onTestRunEnd(testModules, unhandledErrors) {
    if (!this.out) return;
    const errors = [];
    const note = (file, where, list) => {
      for (const e of list ?? [])
        errors.push({ file, where, message: String(e?.message ?? e ?? ''), stack: String(e?.stack ?? '').slice(0, 2000) });
    };
    for (const mod of testModules) {
      const file = path.relative(this.root ?? process.cwd(), mod.moduleId);
      note(file, '', mod.errors());
      for (const suite of mod.children.allSuites()) note(file, suite.fullName, suite.errors());
    }
    note('', 'unhandled', unhandledErrors);
    fs.mkdirSync(path.dirname(this.out), { recursive: true });
    fs.writeFileSync(this.out, JSON.stringify(errors, null, 1));
  }
}
