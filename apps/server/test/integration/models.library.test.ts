/**
 * A model installed with `npm run models -- add` while the server runs (from a local release server
 * serving a tiny Kokoro release the test builds): its voices appear in the library, marked neural and,
 * its licence forbidding commercial use, non-commercial, in `/voice` and `/tts/config`; they become
 * the language's first voices and what OpenAI's voice names speak with; `remove` takes them away again.
 * Neither the server nor the command is told MODELS_DIR: both use DATA_DIR/models.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Voice } from '@polyvox/contracts';
import { Client } from '../support/client.js';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { decodedSeconds } from '../support/audio.js';
import { buildReleases, serveReleases, type Release, type ReleaseServer } from '../support/model-releases.js';
import { runModels } from '../../src/admin/models-cli.js';
import { parseCatalogue } from '../../src/models/catalogue.js';
import { progressTo } from '../../src/models/download.js';

const NC = { name: 'CC-BY-NC-SA-4.0', commercial: false };

describe.each(DIALECTS)('a catalogue model added and removed while the server runs (%s)', (dialect) => {
  let t: TestApp;
  let c: Client;
  let work: string;
  let server: ReleaseServer;
  let kokoro: Release;

  const models = async (command: string[]) => {
    const err: string[] = [];
    const catalogue = parseCatalogue({
      bases: { 'sherpa-onnx': server.url, piper: server.url },
      models: [
        {
          name: kokoro.name,
          family: 'kokoro',
          languages: ['en'],
          speakers: 2,
          sampleRate: 16000,
          downloads: kokoro.downloads,
          licence: NC,
          source: 'test',
        },
      ],
    });
    const code = await runModels(
      command,
      { DATA_DIR: t.dataDir },
      { out: () => {}, err: (l) => err.push(l), progress: progressTo(() => {}, false) },
      { catalogue },
    );
    expect(err).toEqual([]);
    return code;
  };
  const neural = async (): Promise<Voice[]> => (await c.get('/voice?neural=true&page_size=100')).body.items as Voice[];

  beforeAll(async () => {
    work = await fs.mkdtemp(path.join(os.tmpdir(), 'polyvox-models-library-'));
    kokoro = (await buildReleases(path.join(work, 'build'))).find((r) => r.family === 'kokoro')!;
    server = await serveReleases(kokoro.files);
    t = await startTestApp(dialect, { env: { SPEECH_WORKERS: '1' } });
    c = new Client(t.url);
    await c.anonymous();
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await server?.close();
    await fs.rm(work, { recursive: true, force: true });
  });

  it('lists no neural voice before, and Flite first for English', async () => {
    expect(await neural()).toEqual([]);
    const english = (await c.get('/voice?languages=en&page_size=3')).body.items as Voice[];
    expect(english[0]!.engine).toBe('flite');
    expect(english.every((v) => v.neural === false)).toBe(true);
    expect(await t.ctx.voices.openAiVoice('alloy')).toBe('voice_flite.slt');
  });

  it('picks the added model up, marked neural and non-commercial, and ranks it first', async () => {
    expect(await models(['add', kokoro.name])).toBe(0);
    await expect.poll(async () => (await neural()).length, { timeout: 30_000, interval: 250 }).toBe(2);
    const voices = await neural();
    expect(voices.map((v) => [v.name, v.gender, v.non_commercial, v.licence])).toEqual([
      ['Heart', 'female', true, NC.name],
      ['George', 'male', true, NC.name],
    ]);
    const config = (await c.get('/tts/config')).body.models as {
      model: string;
      neural?: boolean;
      non_commercial?: boolean;
      licence?: string;
    }[];
    expect(config.find((m) => m.model === kokoro.name)).toMatchObject({ neural: true, non_commercial: true, licence: NC.name });
    expect(config.find((m) => m.model === 'flite')).toMatchObject({ neural: false });
    expect(config.find((m) => m.model === 'flite')!.non_commercial).toBeUndefined();
    // Not neural: the rest of the library.
    const others = (await c.get('/voice?neural=false&languages=en&page_size=100')).body.items as Voice[];
    expect(others.length).toBeGreaterThan(0);
    expect(others.some((v) => v.model === kokoro.name)).toBe(false);
    // The console's first English voice and OpenAI's names are now the neural ones.
    const first = ((await c.get('/voice?languages=en&page_size=1')).body.items as Voice[])[0]!;
    expect(first.model).toBe(kokoro.name);
    expect(await t.ctx.voices.openAiVoice('alloy')).toBe(voices[0]!.id);
    expect(await t.ctx.voices.openAiVoice('echo')).toBe(voices[1]!.id);
    const res = await fetch(new URL('/v1/audio/speech', t.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${c.sid}` },
      body: JSON.stringify({ model: 'tts-1', input: 'hello world', voice: 'alloy', response_format: 'wav' }),
    });
    expect(res.status).toBe(200);
    expect(await decodedSeconds(Buffer.from(await res.arrayBuffer()))).toBeGreaterThan(0);
  }, 120_000);

  it('drops the voices of a removed model', async () => {
    expect(await models(['remove', kokoro.name])).toBe(0);
    await expect.poll(async () => (await neural()).length, { timeout: 30_000, interval: 250 }).toBe(0);
    expect(await t.ctx.voices.openAiVoice('alloy')).toBe('voice_flite.slt');
  });
});
