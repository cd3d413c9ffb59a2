/**
 * `--only moderation`: the moderation step every text passes before synthesis (apps/server/src/moderation/).
 * - refusal rate on fixtures/moderation/ordinary.txt (1,000 ordinary sentences, en and zh: must be 0) and on
 *   fixtures/moderation/prohibited.txt (disguised list words: should be all), through the real service on SQLite with
 *   the shipped lists and an operator list;
 * - the time the step adds to a one-sentence request (lists and operator list; median and p95) against the median of a
 *   one-sentence synthesis by the engines in this process (eSpeak NG, mp3): the goal is ≤ 2 %;
 * - the same step with a provider (OpenAI's protocol, a local fake on loopback), for scale: a real provider adds its
 *   network round trip.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createSpeech } from '@polyvox/speech';
import { migrate, openDatabase } from '../apps/server/src/platform/db/database.ts';
import { loadSensitiveWords } from '../apps/server/src/platform/sensitive-words.ts';
import { ModerationService } from '../apps/server/src/moderation/service.ts';
import { openAiProvider } from '../apps/server/src/moderation/providers.ts';
import { fakeOpenAiModeration } from '../apps/server/test/support/moderation-fakes.ts';
import { FIXTURE_DIR, OPERATOR_TERMS } from './moderation-fixture.ts';
import { median, quantile, type BenchRow } from './stats.js';

const root = path.resolve(import.meta.dirname, '..');
const LISTS = ['sensitive-words.txt', 'sensitive-words-ldnoobw.txt'].map((f) => path.join(root, 'apps/server/config', f));
const SENTENCE = 'The morning train left the station slowly, carrying travellers towards the distant mountains.';
const SENTENCE_ZH = '清晨的火车缓缓驶出车站，载着旅客前往远方的群山。';

async function lines(file: string): Promise<string[]> {
  return (await fs.readFile(path.join(FIXTURE_DIR, file), 'utf8')).split('\n').filter(Boolean);
}

export async function moderationRows(): Promise<BenchRow[]> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'polyvox-bench-moderation-'));
  const db = openDatabase({ dataDir });
  await migrate(db);
  const settings = () => ({ keepDays: 180, onTimeout: { synthesis: 'open' as const, design: 'closed' as const } });
  const moderation = new ModerationService({ db: db.kysely, words: loadSensitiveWords(LISTS), settings });
  for (const t of OPERATOR_TERMS) await moderation.addTerm(db.kysely, t.term, t.category, 'bench');
  const refused = async (service: ModerationService, text: string) =>
    service.review([text], { accountId: null, route: 'bench', purpose: 'synthesis' }).then(
      () => false,
      (e: { code?: string }) => {
        if (e.code !== 'CONTENT_REFUSED') throw e;
        return true;
      },
    );
  const rows: BenchRow[] = [];

  const ordinary = await lines('ordinary.txt');
  const wrong: string[] = [];
  for (const s of ordinary) if (await refused(moderation, s)) wrong.push(s);
  if (wrong.length) console.log('refused ordinary sentences:\n' + wrong.join('\n'));
  rows.push({
    metric: `refusal rate, ${ordinary.length} ordinary sentences (en, zh: news, fiction, product copy)`,
    value: (100 * wrong.length) / ordinary.length,
    unit: '%',
    target: '0',
    pass: wrong.length === 0,
  });
  // A real book read aloud: the paragraphs of the Studio's public-domain fixture (two presidents' annual messages of
  // the 1790s, whose words are older than today's slurs: "may retard them" once was refused).
  const book = (await fs.readFile(path.join(import.meta.dirname, '../fixtures/studio/annual-messages.md'), 'utf8'))
    .split(/\n\n+/)
    .map((p) => p.replace(/^#+ /, '').trim())
    .filter(Boolean);
  const bookRefused: string[] = [];
  for (const p of book) if (await refused(moderation, p)) bookRefused.push(p);
  if (bookRefused.length) console.log('refused paragraphs of the book:\n' + bookRefused.join('\n'));
  rows.push({
    metric: `refusal rate, ${book.length} paragraphs of a public-domain book (fixtures/studio/annual-messages.md)`,
    value: (100 * bookRefused.length) / book.length,
    unit: '%',
    target: '0',
    pass: bookRefused.length === 0,
  });
  const prohibited = await lines('prohibited.txt');
  const missed: string[] = [];
  for (const s of prohibited) if (!(await refused(moderation, s))) missed.push(s);
  if (missed.length) console.log('passed prohibited sentences:\n' + missed.join('\n'));
  rows.push({
    metric: `refusal rate, ${prohibited.length} prohibited sentences (disguised: Traditional, spaced, full-width, lookalikes, leetspeak, zero-width, filler letters)`,
    value: (100 * (prohibited.length - missed.length)) / prohibited.length,
    unit: '%',
    target: '100',
    pass: missed.length === 0,
  });

  // The added time per request: the review of a one-sentence text, as prepareFor calls it (the written text and the
  // plan's sentences), warmed up, alternating English and Chinese (the Chinese folding is the costly part).
  const review = async (service: ModerationService, n: number) => {
    const ms: number[] = [];
    for (let i = 0; i < n; i++) {
      const text = `${i % 2 ? SENTENCE_ZH : SENTENCE} ${i}`;
      const t0 = performance.now();
      await service.review([text, undefined, text], { accountId: null, route: 'bench', purpose: 'synthesis' });
      ms.push(performance.now() - t0);
    }
    return ms;
  };
  await review(moderation, 200);
  const added = await review(moderation, 2000);

  const speech = await createSpeech({ cache: false });
  const req = { text: SENTENCE, voiceId: 'espeak:en-us', format: 'mp3' as const };
  await speech.synthesize(req);
  const synth: number[] = [];
  for (let i = 0; i < 15; i++) {
    const t0 = performance.now();
    await speech.synthesize({ ...req, text: `${SENTENCE} ${i}` });
    synth.push(performance.now() - t0);
  }
  await speech.close?.();
  const share = (100 * median(added)) / median(synth);
  rows.push({
    metric: `added per request: median ${median(added).toFixed(3)} ms (p95 ${quantile(added, 0.95).toFixed(3)} ms) vs one-sentence synthesis median ${median(synth).toFixed(0)} ms`,
    value: share,
    unit: '% of a synthesis',
    target: '≤ 2',
    pass: share <= 2,
  });
  const p95share = (100 * quantile(added, 0.95)) / median(synth);
  rows.push({ metric: 'the same at p95 of the step', value: p95share, unit: '% of a synthesis' });

  // With a provider: OpenAI's protocol on a local fake (loopback), for the step's own cost beside a network call.
  const fake = await fakeOpenAiModeration('sk-bench', { flag: {} });
  const withProvider = new ModerationService({
    db: db.kysely,
    words: loadSensitiveWords(LISTS),
    settings,
    provider: openAiProvider({ baseUrl: fake.url, apiKey: 'sk-bench' }),
  });
  await review(withProvider, 50);
  const remote = await review(withProvider, 300);
  await fake.close();
  rows.push({
    metric: `with a provider on loopback (OpenAI protocol fake): median ${median(remote).toFixed(2)} ms, p95 ${quantile(remote, 0.95).toFixed(2)} ms`,
    value: (100 * median(remote)) / median(synth),
    unit: '% of a synthesis',
  });
  await db.kysely.destroy();
  await fs.rm(dataDir, { recursive: true, force: true });
  return rows;
}
