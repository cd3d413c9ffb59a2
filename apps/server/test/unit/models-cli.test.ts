/**
 * `npm run models -- add | remove | verify | list` against a local HTTP server that serves tiny releases
 * the tests build in each real layout: installed and found by the server's own discovery; an
 * interrupted download resumed; corrupted, wrong-size, wrong-digest and escaping archives refused with a
 * clear message, leaving nothing half-installed.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { discoverModels, readModelRecord } from '@polyvox/speech';
import { runModels } from '../../src/admin/models-cli.js';
import { loadConfig } from '../../src/platform/config.js';
import { parseCatalogue, type Catalogue } from '../../src/models/catalogue.js';
import { progressTo } from '../../src/models/download.js';
import { buildReleases, serveReleases, sha256, tarBz2, type Release, type ReleaseServer } from '../support/model-releases.js';

let work: string;
let releases: Release[];
let server: ReleaseServer;
let modelsDir: string;

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'polyvox-models-cli-'));
  releases = await buildReleases(path.join(work, 'build'));
  server = await serveReleases(new Map(releases.flatMap((r) => [...r.files])));
}, 60_000);

afterAll(async () => {
  await server?.close();
  rmSync(work, { recursive: true, force: true });
});

beforeEach(() => {
  modelsDir = mkdtempSync(path.join(work, 'models-'));
});

const APACHE = { name: 'Apache-2.0', commercial: true };

function catalogueOf(models: Record<string, unknown>[]): Catalogue {
  return parseCatalogue({ bases: { 'sherpa-onnx': server.url, piper: `${server.url}piper/` }, models });
}

function entry(r: Release, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: r.name,
    family: r.family,
    languages: ['en'],
    speakers: 1,
    sampleRate: 16000,
    downloads: r.downloads,
    licence: APACHE,
    source: 'test',
    ...over,
  };
}

async function run(argv: string[], catalogue: Catalogue, env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const progress: string[] = [];
  const code = await runModels(
    argv,
    { MODELS_DIR: modelsDir, ...env },
    { out: (l) => out.push(l), err: (l) => err.push(l), progress: progressTo((s) => progress.push(s), false) },
    { catalogue },
  );
  return { code, out: out.join('\n'), err: err.join('\n'), progress: progress.join('') };
}

/** What MODELS_DIR holds apart from the downloads folder: nothing half-installed may be there. */
const visible = (): string[] => readdirSync(modelsDir).filter((f) => f !== '.downloads');
const parts = (): string[] =>
  existsSync(path.join(modelsDir, '.downloads')) ? readdirSync(path.join(modelsDir, '.downloads')) : [];

const release = (name: string): Release => releases.find((r) => r.name === name)!;

/** Serves `archive` as the release NAME and runs `add NAME` on a catalogue that lists it (size exact, no digest). */
async function addArchive(name: string, archive: Buffer) {
  server.files.set(`tts-models/${name}.tar.bz2`, archive);
  const downloads = [{ base: 'sherpa-onnx', path: `tts-models/${name}.tar.bz2`, bytes: archive.length }];
  return run(['add', name], catalogueOf([{ ...entry(release('vits-tiny')), name, downloads }]));
}

describe('add installs each layout, and the server finds it', () => {
  it('installs every release layout, records its digests and licence, and discovery finds the model', async () => {
    const catalogue = catalogueOf(releases.map((r) => entry(r)));
    for (const r of releases) {
      const res = await run(['add', r.name], catalogue);
      expect(res.err, r.name).toBe('');
      expect(res.code, r.name).toBe(0);
      expect(res.out).toContain('Licence: Apache-2.0: commercial use allowed');
      expect(res.progress).toMatch(/100% \(/);
      const record = readModelRecord(path.join(modelsDir, r.name))!;
      expect(record.downloads.map((d) => d.sha256)).toEqual(r.downloads.map((d) => sha256(server.files.get(d.path)!)));
      for (const [rel, sha] of Object.entries(record.files))
        expect(sha256(readFileSync(path.join(modelsDir, r.name, rel))), rel).toBe(sha);
    }
    const scan = discoverModels(modelsDir, path.join(work, 'cache'));
    expect(scan.problems).toEqual([]);
    expect(new Map(scan.models.map((m) => [m.id, m.type]))).toEqual(new Map(releases.map((r) => [r.name, r.type])));
    expect(scan.models.every((m) => m.licence?.commercial === true)).toBe(true);
    // The vocoder released apart lies in the model's folder.
    expect(readdirSync(path.join(modelsDir, 'matcha-tiny-en_US'))).toContain('hifigan.onnx');
    expect(visible().sort()).toEqual(releases.map((r) => r.name).sort());
    expect(parts()).toEqual([]);
    expect((await run(['verify'], catalogue)).code).toBe(0);
  }, 120_000);

  it('downloads from MODELS_MIRROR when it is set', async () => {
    const r = release('kokoro-tiny-en');
    const catalogue = parseCatalogue({
      bases: { 'sherpa-onnx': 'http://127.0.0.1:9/', piper: 'http://127.0.0.1:9/' },
      models: [entry(r)],
    });
    const res = await run(['add', r.name], catalogue, { MODELS_MIRROR: server.url });
    expect(res.err).toBe('');
    expect(readModelRecord(path.join(modelsDir, r.name))!.urls).toEqual([`${server.url}tts-models/${r.name}.tar.bz2`]);
  });

  it('shows the licence before downloading, stores it, and marks a non-commercial model', async () => {
    const r = release('vits-tiny');
    const nc = { name: 'CC-BY-NC-SA-4.0', commercial: false, url: 'https://creativecommons.org/licenses/by-nc-sa/4.0/' };
    const res = await run(['add', r.name], catalogueOf([entry(r, { licence: nc })]));
    expect(res.out.split('\n')[1]).toBe(`Licence: CC-BY-NC-SA-4.0: NOT for commercial use (${nc.url})`);
    const found = discoverModels(modelsDir, path.join(work, 'cache')).models.find((m) => m.id === r.name)!;
    expect(found.licence).toEqual(nc);
  });

  it('remove deletes the model; verify finds a changed file and a broken layout', async () => {
    const catalogue = catalogueOf([entry(release('kokoro-tiny-en')), entry(release('vits-tiny'))]);
    await run(['add', 'kokoro-tiny-en'], catalogue);
    await run(['add', 'vits-tiny'], catalogue);
    writeFileSync(path.join(modelsDir, 'vits-tiny', 'tokens.txt'), 'changed\n');
    rmSync(path.join(modelsDir, 'kokoro-tiny-en', 'voices.bin'));
    const v = await run(['verify'], catalogue);
    expect(v.code).toBe(1);
    expect(v.err).toContain('vits-tiny: tokens.txt has changed');
    expect(v.err).toContain('kokoro-tiny-en: voices.bin is missing');
    const gone = await run(['remove', 'kokoro-tiny-en'], catalogue);
    expect(gone.code).toBe(0);
    expect(visible()).toEqual(['vits-tiny']);
    expect((await run(['remove', 'kokoro-tiny-en'], catalogue)).err).toContain('is not installed');
  });

  it('lists the catalogue with sizes, licences and what is installed', async () => {
    const r = release('vits-tiny');
    const catalogue = catalogueOf([entry(r), entry(release('kokoro-tiny-en'), { licence: { name: 'X', commercial: false } })]);
    await run(['add', r.name], catalogue);
    const list = (await run(['list'], catalogue)).out.split('\n');
    expect(list[0]).toMatch(/^\* vits-tiny {2}vits {2}en {2}1 voices {2}[\d.]+ kB {2}Apache-2\.0$/);
    expect(list[1]).toMatch(/^ {2}kokoro-tiny-en .* X \(non-commercial\)$/);
  });

  it('names each licence once, also one whose name already says non-commercial', async () => {
    const lessac = { name: 'Blizzard 2011 Lessac (non-commercial)', commercial: false };
    const list = (await run(['list'], catalogueOf([entry(release('vits-tiny'), { licence: lessac })]))).out.split('\n');
    expect(list[0]).toMatch(/ {2}Blizzard 2011 Lessac \(non-commercial\)$/);
    // The shipped catalogue: every non-commercial model says so once.
    const env = { DATA_DIR: path.join(work, 'data-list') };
    const out: string[] = [];
    const io = { out: (l: string) => out.push(l), err: () => {}, progress: progressTo(() => {}, false) };
    expect(await runModels(['list'], env, io)).toBe(0);
    const models = out.slice(0, -1);
    expect(models.length).toBeGreaterThan(10);
    expect(models.filter((l) => l.includes('non-commercial')).length).toBeGreaterThan(0);
    for (const l of models) expect(l.split('non-commercial').length, l).toBeLessThanOrEqual(2);
  });

  it('installs into DATA_DIR/models without MODELS_DIR, where the server looks by default', async () => {
    const r = release('vits-tiny');
    const catalogue = catalogueOf([entry(r)]);
    const dataDir = path.join(work, 'data-default');
    const io = { out: () => {}, err: (l: string) => expect.fail(l), progress: progressTo(() => {}, false) };
    expect(await runModels(['add', r.name], { DATA_DIR: dataDir }, io, { catalogue })).toBe(0);
    const serverDir = loadConfig({ DATA_DIR: dataDir }).MODELS_DIR;
    expect(serverDir).toBe(path.join(dataDir, 'models'));
    expect(discoverModels(serverDir, path.join(work, 'cache')).models.map((m) => m.id)).toEqual([r.name]);
    const out: string[] = [];
    expect(await runModels(['list'], { DATA_DIR: dataDir }, { ...io, out: (l) => out.push(l) }, { catalogue })).toBe(0);
    expect(out[0]).toMatch(/^\* vits-tiny /);
  });
});

describe('add refuses, and leaves nothing half-installed', () => {
  const nothingInstalled = (): void => {
    expect(visible()).toEqual([]);
    expect(readdirSync(work).filter((f) => f.startsWith('evil'))).toEqual([]);
  };

  it('resumes an interrupted download with a Range request', async () => {
    const r = release('kokoro-tiny-en');
    const archive = r.downloads[0]!.path;
    const size = server.files.get(archive)!.length;
    server.ranges.delete(archive);
    server.cutAfter.set(archive, Math.floor(size / 2));
    const catalogue = catalogueOf([entry(r)]);
    const first = await run(['add', r.name], catalogue);
    expect(first.code).toBe(1);
    expect(first.err, first.err).toMatch(/the download was interrupted after .*run the same command again to resume/);
    nothingInstalled();
    const part = path.join(modelsDir, '.downloads', parts()[0]!);
    // Everything that arrived is kept, and asked for no more.
    expect(statSync(part).size, first.err).toBe(Math.floor(size / 2));
    const second = await run(['add', r.name], catalogue);
    expect(second.err).toBe('');
    expect(second.code).toBe(0);
    expect(second.progress).toContain('(resumed)');
    expect(server.ranges.get(archive)).toEqual([undefined, `bytes=${Math.floor(size / 2)}-`]);
    expect(readModelRecord(path.join(modelsDir, r.name))!.downloads[0]!.sha256).toBe(sha256(server.files.get(archive)!));
    expect(parts()).toEqual([]);
  });

  it('refuses a corrupted archive (its bzip2 check fails) and deletes it', async () => {
    const bad = Buffer.from(server.files.get(release('vits-tiny').downloads[0]!.path)!);
    bad[Math.floor(bad.length / 2)]! ^= 0xff;
    const res = await addArchive('corrupt', bad);
    expect(res.code).toBe(1);
    expect(res.err).toMatch(/^the archive is not a readable \.tar\.bz2/);
    nothingInstalled();
    // A download that arrived whole but cannot be unpacked is not kept for a resume.
    expect(parts()).toEqual([]);
  });

  it('refuses a download of the wrong size before fetching it', async () => {
    const r = release('vits-tiny');
    const d = r.downloads[0]!;
    const res = await run(['add', r.name], catalogueOf([entry(r, { downloads: [{ ...d, bytes: d.bytes + 1 }] })]));
    expect(res.code).toBe(1);
    expect(res.err).toBe(
      `${r.name}.tar.bz2 is ${d.bytes} bytes on the server, the catalogue expects ${d.bytes + 1} bytes: refused`,
    );
    nothingInstalled();
    expect(parts()).toEqual([]);
  });

  it('holds an approximate size to half to twice the file: an error page in a model’s place is refused', async () => {
    const r = release('vits-tiny');
    const d = r.downloads[0]!;
    const far = await run(
      ['add', r.name],
      catalogueOf([entry(r, { downloads: [{ ...d, bytes: d.bytes * 3, approximate: true }] })]),
    );
    expect(far.err).toBe(
      `${r.name}.tar.bz2 is ${d.bytes} bytes on the server, the catalogue expects about ${((d.bytes * 3) / 1e3).toFixed(1)} kB: refused`,
    );
    nothingInstalled();
    const near = await run(
      ['add', r.name],
      catalogueOf([entry(r, { downloads: [{ ...d, bytes: Math.round(d.bytes * 1.5), approximate: true }] })]),
    );
    expect(near.err).toBe('');
    expect(near.code).toBe(0);
  });

  it('refuses a download whose SHA-256 is not the catalogue’s', async () => {
    const r = release('vits-tiny');
    const d = r.downloads[0]!;
    const res = await run(['add', r.name], catalogueOf([entry(r, { downloads: [{ ...d, sha256: '0'.repeat(64) }] })]));
    expect(res.code).toBe(1);
    expect(res.err).toBe(
      `${r.name}.tar.bz2 has SHA-256 ${sha256(server.files.get(d.path)!)}, the catalogue expects ${'0'.repeat(64)}: refused and deleted`,
    );
    nothingInstalled();
    expect(parts()).toEqual([]);
    // With the right digest it installs.
    const ok = await run(
      ['add', r.name],
      catalogueOf([entry(r, { downloads: [{ ...d, sha256: sha256(server.files.get(d.path)!) }] })]),
    );
    expect(ok.code).toBe(0);
  });

  const model = (top: string): { name: string; body: string }[] => [
    { name: `${top}/model.onnx`, body: 'x' },
    { name: `${top}/tokens.txt`, body: 'a 0\n' },
  ];

  it.each([
    ['a "../" path', (t: string) => [...model(t), { name: `${t}/../../evil-dotdot.txt`, body: 'x' }], /climbs out with "\.\."/],
    ['an absolute path', (_t: string, abs: string) => [{ name: abs, body: 'x' }], /has an absolute path/],
    [
      'a symlink out of the folder',
      (t: string) => [
        ...model(t),
        { name: `${t}/escape`, type: 'symlink' as const, linkname: '../../../evil-link' },
        { name: `${t}/escape/x`, body: 'x' },
      ],
      /is a link to \.\.\/\.\.\/\.\.\/evil-link, outside the model's folder/,
    ],
    [
      'a symlink that leaves through another link',
      (t: string) => [
        { name: `${t}/`, type: 'directory' as const },
        { name: `${t}/here`, type: 'symlink' as const, linkname: '.' },
        { name: `${t}/here/up`, type: 'symlink' as const, linkname: '..' },
        { name: `${t}/here/up/evil-through.txt`, body: 'x' },
      ],
      /outside the model's folder/,
    ],
    [
      'a hard link',
      (t: string) => [...model(t), { name: `${t}/hard`, type: 'link' as const, linkname: '/etc/passwd' }],
      /is a link entry|which a model never needs/,
    ],
  ])('refuses an archive with %s', async (_label, entries, message) => {
    const abs = path.join(work, 'evil-absolute.txt');
    const archive = await tarBz2(entries('evil-model', abs));
    const res = await addArchive('evil-model', archive);
    expect(res.code).toBe(1);
    expect(res.err).toMatch(message);
    expect(res.err).toMatch(/refused/);
    nothingInstalled();
    expect(existsSync(path.join(path.dirname(modelsDir), 'evil-dotdot.txt'))).toBe(false);
    expect(existsSync(abs)).toBe(false);
  });

  it('refuses an archive that holds no model the server can run', async () => {
    const archive = await tarBz2([{ name: 'empty/README.md', body: 'hello' }]);
    const res = await addArchive('empty', archive);
    expect(res.err).toBe('empty is not a model the server can run (no .onnx model in the folder): nothing was installed');
    nothingInstalled();
  });

  it('names a model missing from the catalogue, and one already installed', async () => {
    const r = release('vits-tiny');
    const catalogue = catalogueOf([entry(r)]);
    expect((await run(['add', 'nope'], catalogue)).err).toBe('nope is not in the catalogue (npm run models -- list shows it)');
    await run(['add', r.name], catalogue);
    expect((await run(['add', r.name], catalogue)).err).toMatch(/is already installed/);
  });
});

describe('the progress display', () => {
  it('draws a bar in place on a terminal and plain lines elsewhere', () => {
    const tty: string[] = [];
    const p = progressTo((s) => tty.push(s), true);
    p.start('m.tar.bz2', 1000, 0);
    p.advance(500);
    p.end();
    expect(tty[1]).toMatch(/^\rm\.tar\.bz2 \[#{15}-{15}\] {2}50% 500 B of 1\.0 kB/);
    const plain: string[] = [];
    const q = progressTo((s) => plain.push(s), false);
    q.start('m.tar.bz2', 1000, 0);
    for (let i = 0; i < 100; i++) q.advance(10);
    expect(plain).toHaveLength(11);
    expect(plain.at(-1)).toBe('m.tar.bz2: 100% (1.0 kB of 1.0 kB)\n');
  });
});
