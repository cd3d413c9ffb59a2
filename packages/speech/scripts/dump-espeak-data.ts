/**
 * Regenerates src/catalogue/espeak-data.json from the installed espeak-ng package: its languages
 * and its variant files. The catalogue is data so that listing voices needs no engine load;
 * test/catalogue.test.ts checks it still matches the package.
 */
import { writeFileSync } from 'node:fs';
import { loadEspeakData } from '../src/engines/espeak-runtime.ts';

const data = await loadEspeakData();
const out = new URL('../src/catalogue/espeak-data.json', import.meta.url);
writeFileSync(out, JSON.stringify(data, null, 1) + '\n');
console.log(`${data.languages.length} languages, ${data.variants.length} variants -> ${out.pathname}`);
