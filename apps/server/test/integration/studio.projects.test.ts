import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ElevenLabsClient, ElevenLabsError } from '@elevenlabs/elevenlabs-js';
import { DIALECTS, type TestApp } from '../support/app.js';
import { Client } from '../support/client.js';
import { keyedApp } from '../support/sdk.js';
import { buildEpub } from '../support/studio-docs.js';

const VOICE = 'voice_flite.slt';

describe.each(DIALECTS)('Studio projects (%s)', (dialect) => {
  let t: TestApp;
  let c: Client;
  let key: string;
  beforeAll(async () => {
    const app = await keyedApp(dialect, 1000, 'studio');
    t = app.t;
    c = app.c;
    key = app.key.key;
  });
  afterAll(async () => {
    await t.close();
  });

  const form = (fields: Record<string, string>, file?: { bytes: Buffer; name: string }) => {
    const f = new FormData();
    for (const [k, v] of Object.entries(fields)) f.append(k, v);
    if (file) f.append('from_document', new Blob([new Uint8Array(file.bytes)]), file.name);
    return f;
  };

  it('makes a project from an EPUB, answers its chapters and paragraphs, edits them, and only to its owner', async () => {
    const made = await c.request(
      'POST',
      '/v1/studio/projects',
      form({ name: 'Book', default_paragraph_voice_id: VOICE }, { bytes: await buildEpub(), name: 'b.epub' }),
    );
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    const id = made.body.project.project_id as string;
    expect(made.body.project).toMatchObject({
      name: 'Book',
      title: 'A Small Book',
      author: 'Jane Writer',
      default_paragraph_voice_id: VOICE,
    });

    const got = await c.get(`/v1/studio/projects/${id}`);
    expect(got.status).toBe(200);
    expect(got.body.chapters.map((ch: { name: string }) => ch.name)).toEqual(['The Storm', 'Morning']);
    expect(got.body.speakers).toEqual([
      { name: 'Narrator', voice_id: null, paragraphs: 2 },
      { name: 'Anna', voice_id: null, paragraphs: 1 },
      { name: 'Tom', voice_id: null, paragraphs: 1 },
    ]);
    const chapterId = got.body.chapters[0].chapter_id as string;
    const chapter = await c.get(`/v1/studio/projects/${id}/chapters/${chapterId}`);
    expect(
      chapter.body.content.blocks.map((b: { speaker: string; nodes: { text: string }[] }) => [b.speaker, b.nodes[0]!.text]),
    ).toEqual([
      ['Narrator', 'It was a dark night.'],
      ['Anna', '“Run,” said Anna.'],
    ]);
    const anna = chapter.body.content.blocks[1];

    // Anna's voice, mapped once for the project: her paragraph's voice and hash change; the narrator's do not.
    const other = (await c.get('/v1/voices?page_size=5')).body;
    const annaVoice =
      (other.voices ?? other.items ?? [])
        .map((v: { voice_id?: string; id?: string }) => v.voice_id ?? v.id)
        .find((v: string) => v !== VOICE) ?? VOICE;
    const mapped = await c.put(`/v1/studio/projects/${id}/speakers`, { speaker: 'Anna', voice_id: annaVoice });
    expect(mapped.status, JSON.stringify(mapped.body)).toBe(200);
    expect(mapped.body.speakers[1]).toEqual({ name: 'Anna', voice_id: annaVoice, paragraphs: 1 });
    const after = (await c.get(`/v1/studio/projects/${id}/chapters/${chapterId}`)).body.content.blocks;
    expect(after[0].content_hash).toBe(chapter.body.content.blocks[0].content_hash);
    if (annaVoice !== VOICE) expect(after[1].content_hash).not.toBe(anna.content_hash);
    expect(after[1].nodes[0].voice_id).toBe(annaVoice);

    const edited = await c.request('PATCH', `/v1/studio/projects/${id}/paragraphs/${anna.block_id}`, {
      text: '“Run!” said Anna.',
      pause_after_ms: 800,
      speaker: 'Anna Smith',
    });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    expect(edited.body).toMatchObject({
      speaker: 'Anna Smith',
      pause_after_ms: 800,
      voice_override: null,
      nodes: [{ text: '“Run!” said Anna.', voice_id: VOICE }],
    });
    const pause = edited.body.content_hash;
    const paused = await c.request('PATCH', `/v1/studio/projects/${id}/paragraphs/${anna.block_id}`, { pause_after_ms: 100 });
    expect(paused.body.content_hash).toBe(pause);
    expect(
      (await c.request('PATCH', `/v1/studio/projects/${id}/paragraphs/${anna.block_id}`, { voice_id: 'voice_nobody' })).body,
    ).toMatchObject({
      error: { code: 'VALIDATION_FAILED' },
    });
    expect(
      (await c.request('PATCH', `/v1/studio/projects/${id}/paragraphs/${anna.block_id}`, { text: 'x'.repeat(5001) })).status,
    ).toBe(400);

    // Another account: 404 everywhere, as a missing project.
    const stranger = new Client(t.url);
    await stranger.anonymous();
    for (const res of [
      await stranger.get(`/v1/studio/projects/${id}`),
      await stranger.get(`/v1/studio/projects/${id}/chapters`),
      await stranger.get(`/v1/studio/projects/${id}/chapters/${chapterId}`),
      await stranger.request('PATCH', `/v1/studio/projects/${id}/paragraphs/${anna.block_id}`, { pause_after_ms: 1 }),
      await stranger.put(`/v1/studio/projects/${id}/speakers`, { speaker: 'Anna', voice_id: null }),
      await stranger.request('DELETE', `/v1/studio/projects/${id}`),
    ])
      expect(res.body.error.code).toBe('NOT_FOUND');
    expect((await stranger.get('/v1/studio/projects')).body).toEqual({ projects: [] });
    expect((await c.get(`/v1/studio/projects/${id}`)).status).toBe(200);

    expect((await c.request('DELETE', `/v1/studio/projects/${id}`)).body).toEqual({ status: 'ok' });
    expect((await c.get(`/v1/studio/projects/${id}`)).status).toBe(404);
  });

  it('refuses what it must, in the reader’s language', async () => {
    const post = (f: FormData, lang?: string) =>
      (lang ? new Client(t.url, lang) : c).request('POST', '/v1/studio/projects', f, { 'xi-api-key': key });
    expect((await post(form({ name: 'x' }, { bytes: Buffer.from('%PDF-1.4'), name: 'a.pdf' }))).body.error.code).toBe(
      'UNSUPPORTED_FILE_TYPE',
    );
    const badVoice = await post(form({ name: 'x', text: 'Hello.', default_paragraph_voice_id: 'voice_nobody' }), 'zh-CN');
    expect(badVoice.status).toBe(400);
    expect(badVoice.body.error.message).toMatch(/default_paragraph_voice_id/);
    expect(badVoice.body.error.message).toMatch(/[\u4e00-\u9fff]/);
    expect((await post(form({ text: 'Hello.' }))).body.error.code).toBe('PARAMETERS_NEEDED');
    const broken = await post(form({ name: 'x' }, { bytes: (await buildEpub()).subarray(0, 200), name: 'b.epub' }), 'zh-TW');
    expect(broken.body.error).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(broken.body.error.message).toMatch(/EPUB/);
    const unauth = await fetch(`${t.url}/v1/studio/projects`);
    expect(unauth.status).toBe(401);
  });

  it("works with the official ElevenLabs SDK's studio calls unchanged", async () => {
    const eleven = new ElevenLabsClient({ apiKey: key, baseUrl: t.url, maxRetries: 0 });
    const created = await eleven.studio.projects.create({
      name: 'SDK book',
      defaultParagraphVoiceId: VOICE,
      fromDocument: new File(['Chapter 1\n\nTom: Hello there.\n\nChapter 2\n\n"Bye," said Anna.\n'], 'book.txt', {
        type: 'text/plain',
      }),
    });
    const projectId = created.project.projectId;
    expect(created.project).toMatchObject({ name: 'SDK book', defaultParagraphVoiceId: VOICE, state: 'default' });
    const list = await eleven.studio.projects.list();
    expect(list.projects.map((p) => p.projectId)).toContain(projectId);
    const project = await eleven.studio.projects.get(projectId);
    expect(project.chapters.map((ch) => ch.name)).toEqual(['Chapter 1', 'Chapter 2']);
    const chapters = await eleven.studio.projects.chapters.list(projectId);
    expect(chapters.chapters).toHaveLength(2);
    const chapter = await eleven.studio.projects.chapters.get(projectId, chapters.chapters[0]!.chapterId);
    expect(chapter.content.blocks[0]!.nodes[0]).toMatchObject({ type: 'tts_node', text: 'Hello there.', voiceId: VOICE });
    expect(await eleven.studio.projects.delete(projectId)).toEqual({ status: 'ok' });
    await expect(eleven.studio.projects.get(projectId)).rejects.toBeInstanceOf(ElevenLabsError);
  });
});
