import 'reflect-metadata';
import { execFile } from 'node:child_process';
import { createPrivateKey, webcrypto, X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import ffprobe from '@ffprobe-installer/ffprobe';
import * as x509 from '@peculiar/x509';
import { parseBuffer } from 'music-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSpeech, FFMPEG } from '@polyvox/speech';
import { id3Size } from '@polyvox/speech/formats';
import {
  loadOrCreateSigner,
  readC2pa,
  readC2paInThread,
  signAudio,
  signerAnchorPem,
  TRAINED_ALGORITHMIC_MEDIA,
  type C2paClaim,
  type C2paSigner,
} from '../../src/provenance/index.ts';

const run = promisify(execFile);
const C2PA_SIGNING_EKU = '1.3.6.1.4.1.62558.2.1';
x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'polyvox-c2pa-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

const AIGC = JSON.stringify({ Label: '1', ContentProducer: 'test-operator', ProduceID: 'pv_test_1' });
const MIME = { mp3: 'audio/mpeg', wav: 'audio/wav' } as const;
const claim = (over: Partial<C2paClaim> = {}): C2paClaim => ({
  produceId: 'pv_test_1',
  createdAt: new Date('2026-05-01T12:00:00Z'),
  voiceId: 'espeak:en-us',
  voiceKind: 'library',
  engine: 'espeak-ng',
  generator: { name: 'Polyvox', version: '0.1.0' },
  ...over,
});

const latin1 = (s: string) => new TextEncoder().encode(s);
const syncsafe = (n: number) => [(n >> 21) & 0x7f, (n >> 14) & 0x7f, (n >> 7) & 0x7f, n & 0x7f];

/** An ID3v2.4 tag with one TXXX frame (UTF-8), as the AIGC label is written. */
function id3Txxx(description: string, value: string): Uint8Array {
  const body = [3, ...latin1(description), 0, ...latin1(value)];
  const frame = [...latin1('TXXX'), ...syncsafe(body.length), 0, 0, ...body];
  return new Uint8Array([...latin1('ID3'), 4, 0, 0, ...syncsafe(frame.length), ...frame]);
}

/** The wav with a LIST/INFO chunk holding `key` inserted before its data chunk. */
function withInfoChunk(wav: Uint8Array, key: string, value: string): Uint8Array {
  const text = latin1(`${value}\0`);
  const list = new Uint8Array(20 + text.length + (text.length % 2));
  const dv = new DataView(list.buffer);
  list.set(latin1('LIST'), 0);
  dv.setUint32(4, list.length - 8, true);
  list.set(latin1('INFO'), 8);
  list.set(latin1(key), 12);
  dv.setUint32(16, text.length, true);
  list.set(text, 20);
  const view = new DataView(wav.buffer, wav.byteOffset, wav.byteLength);
  let at = 12;
  while (String.fromCharCode(...wav.subarray(at, at + 4)) !== 'data') {
    const size = view.getUint32(at + 4, true);
    at += 8 + size + (size % 2);
  }
  const out = new Uint8Array(wav.length + list.length);
  out.set(wav.subarray(0, at));
  out.set(list, at);
  out.set(wav.subarray(at), at + list.length);
  new DataView(out.buffer).setUint32(4, out.length - 8, true);
  return out;
}

/** Where the audio payload starts: after the ID3 tag (mp3), inside the data chunk (wav). */
function audioStart(file: Uint8Array, format: 'mp3' | 'wav'): number {
  if (format === 'mp3') return id3Size(file);
  for (let at = 12; ;) {
    const size = new DataView(file.buffer, file.byteOffset).getUint32(at + 4, true);
    if (String.fromCharCode(...file.subarray(at, at + 4)) === 'data') return at + 8;
    at += 8 + size + (size % 2);
  }
}

async function probe(file: string): Promise<{ duration: number; tags: Record<string, string> }> {
  const { stdout } = await run(ffprobe.path, [
    '-v',
    'error',
    '-show_entries',
    'format=duration:format_tags',
    '-of',
    'json',
    file,
  ]);
  const format = (JSON.parse(stdout) as { format: { duration: string; tags?: Record<string, string> } }).format;
  return { duration: Number(format.duration), tags: format.tags ?? {} };
}

/** Decodes the whole file with ffmpeg (errors fail the run) and returns the decoded PCM's byte count. */
async function decodedBytes(file: string): Promise<number> {
  const { stdout, stderr } = await run(FFMPEG, ['-v', 'error', '-xerror', '-i', file, '-f', 's16le', '-'], {
    encoding: 'buffer',
    maxBuffer: 64 << 20,
  });
  expect(stderr.toString()).toBe('');
  return stdout.length;
}

const audio: Record<'mp3' | 'wav', Uint8Array> = { mp3: new Uint8Array(), wav: new Uint8Array() };
let signer: C2paSigner;
let rootPem: string;

// The engines start and speak here: tens of seconds on a loaded machine.
beforeAll(async () => {
  const speech = await createSpeech({ poolSize: 1, warmup: false, cache: false });
  try {
    const text = 'This sentence was spoken by a machine, and the file says so in its signed manifest.';
    for (const format of ['mp3', 'wav'] as const) {
      const res = await speech.synthesize({ text, voiceId: 'espeak:en-us', format });
      const bytes = new Uint8Array(res.audio);
      audio[format] =
        format === 'mp3'
          ? new Uint8Array([...id3Txxx('AIGC', AIGC), ...bytes.subarray(id3Size(bytes))])
          : withInfoChunk(bytes, 'AIGC', AIGC);
    }
  } finally {
    await speech.close();
  }
  const dataDir = path.join(scratch, 'data');
  signer = await loadOrCreateSigner({ dataDir, organization: 'Test Operator' });
  rootPem = signerAnchorPem(signer);
  expect(fs.readFileSync(path.join(dataDir, 'c2pa', 'root-ca.pem'), 'utf8')).toContain(rootPem.trim());
}, 120_000);

describe('the signing key and certificate', () => {
  it('are made once in DATA_DIR (0600), reused on the next start, and fit the C2PA certificate profile', async () => {
    const dataDir = path.join(scratch, 'keys');
    const first = await loadOrCreateSigner({ dataDir, organization: 'Acme' });
    const again = await loadOrCreateSigner({ dataDir, organization: 'Acme' });
    expect(again).toEqual(first);
    const dir = path.join(dataDir, 'c2pa');
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    for (const name of fs.readdirSync(dir)) expect(fs.statSync(path.join(dir, name)).mode & 0o777).toBe(0o600);

    const chain = first.certChainPem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g)!;
    expect(chain).toHaveLength(2);
    const [leaf, root] = chain.map((pem) => new X509Certificate(pem));
    expect(leaf!.ca).toBe(false);
    expect(root!.ca).toBe(true);
    expect(leaf!.checkIssued(root!)).toBe(true);
    expect(leaf!.issuer).not.toBe(leaf!.subject);
    expect(leaf!.keyUsage).toContain('1.3.6.1.5.5.7.3.4');
    expect(leaf!.subject).toContain('O=Acme');
  });

  it('renews its own end-entity certificate a year before it ends, under the same root', async () => {
    const dataDir = path.join(scratch, 'renew');
    const first = await loadOrCreateSigner({ dataDir, organization: 'Acme' });
    const file = path.join(dataDir, 'c2pa', 'signer.pem');
    const caPem = fs.readFileSync(path.join(dataDir, 'c2pa', 'root-ca.pem'), 'utf8');
    const rootCert = new x509.X509Certificate(caPem.slice(caPem.indexOf('-----BEGIN CERTIFICATE')));
    const rootKey = await webcrypto.subtle.importKey(
      'pkcs8',
      createPrivateKey(caPem).export({ type: 'pkcs8', format: 'der' }),
      { name: 'ECDSA', namedCurve: 'P-256' },
      false,
      ['sign'],
    );
    const ending = await issue({ key: rootKey, cert: rootCert }, 'P-256', 'CN=Ending, O=Acme', 30);
    fs.writeFileSync(file, ending.keyPem + ending.certPem + rootCert.toString('pem'), { mode: 0o600 });

    const renewed = await loadOrCreateSigner({ dataDir, organization: 'Acme' });
    const [leaf, root] = renewed.certChainPem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g)!;
    expect(Date.parse(new X509Certificate(leaf!).validTo)).toBeGreaterThan(Date.now() + 5 * 365 * 86_400_000);
    expect(root).toBe(first.certChainPem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g)![1]);
    expect(renewed.privateKeyPem).not.toBe(first.privateKeyPem);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(await loadOrCreateSigner({ dataDir, organization: 'Acme' })).toEqual(renewed);
    await expect(readC2pa(await signAudio(audio.wav, 'wav', claim(), renewed), MIME.wav)).resolves.toMatchObject({
      valid: true,
    });
  });

  it('two processes starting at once end up with one signer', async () => {
    const dataDir = path.join(scratch, 'race');
    const [a, b] = await Promise.all([
      loadOrCreateSigner({ dataDir, organization: 'Acme' }),
      loadOrCreateSigner({ dataDir, organization: 'Acme' }),
    ]);
    expect(a).toEqual(b);
    expect(fs.readdirSync(dataDir)).toEqual(['c2pa']);
  });

  it("uses the operator's chain and key when given, and refuses a key that is not the certificate's", async () => {
    const { certFile, keyFile, commonName } = await operatorChain();
    const dataDir = path.join(scratch, 'operator-data');
    const operator = await loadOrCreateSigner({ dataDir, organization: 'Ignored', certFile, keyFile });
    expect(fs.existsSync(path.join(dataDir, 'c2pa'))).toBe(false);
    expect(operator.certChainPem).toBe(
      fs
        .readFileSync(certFile, 'utf8')
        .match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g)!
        .map((pem) => new X509Certificate(pem).toString())
        .join(''),
    );
    const report = await readC2pa(await signAudio(audio.mp3, 'mp3', claim(), operator), MIME.mp3);
    expect(report.errors.map((e) => e.split(':')[0])).toEqual(['signingCredential.untrusted']);
    expect(report).toMatchObject({ present: true, valid: true, validationState: 'Valid' });
    expect(report.signer?.commonName).toBe(commonName);

    const other = await operatorChain();
    await expect(loadOrCreateSigner({ dataDir, organization: 'x', certFile, keyFile: other.keyFile })).rejects.toThrow(
      /not the first certificate's/,
    );
    await expect(loadOrCreateSigner({ dataDir, organization: 'x', certFile })).rejects.toThrow(/together/);
  });
});

describe.each(['mp3', 'wav'] as const)('a signed %s', (format) => {
  let signed: Uint8Array;
  beforeAll(async () => {
    signed = await signAudio(audio[format], format, claim({ voiceKind: 'clone', voiceId: 'v_clone_7' }), signer);
  });

  it('reads back with the reference reader: created by a trained algorithm, valid signature and hash binding', async () => {
    const report = await readC2pa(signed, MIME[format]);
    expect(report).toMatchObject({
      present: true,
      valid: true,
      validationState: 'Valid',
      claimGenerator: 'Polyvox 0.1.0',
      voiceKind: 'clone',
      voiceId: 'v_clone_7',
      produceId: 'pv_test_1',
      engine: 'espeak-ng',
    });
    expect(report.actions).toEqual([
      { action: 'c2pa.created', digitalSourceType: TRAINED_ALGORITHMIC_MEDIA, when: '2026-05-01T12:00:00.000Z' },
    ]);
    // Our own root is on no trust list: that is the only failure, and with it as an anchor the file is Trusted.
    expect(report.errors.map((e) => e.split(':')[0])).toEqual(['signingCredential.untrusted']);
    const anchored = await readC2pa(signed, MIME[format], { trustAnchorsPem: rootPem });
    expect(anchored).toMatchObject({ valid: true, validationState: 'Trusted', errors: [] });
  });

  it('stays a valid file: ffmpeg decodes it all, same length; ffprobe and an ID3 parser still see the AIGC field', async () => {
    const before = path.join(scratch, `before.${format}`);
    const after = path.join(scratch, `after.${format}`);
    fs.writeFileSync(before, audio[format]);
    fs.writeFileSync(after, signed);
    expect(await decodedBytes(after)).toBe(await decodedBytes(before));
    const [probedBefore, probedAfter] = await Promise.all([probe(before), probe(after)]);
    expect(probedAfter.duration).toBeCloseTo(probedBefore.duration, 3);
    expect(probedAfter.tags.AIGC).toBe(AIGC);
    if (format === 'mp3') {
      const meta = await parseBuffer(signed, { mimeType: MIME.mp3 });
      const txxx = (meta.native['ID3v2.4'] ?? []).filter((t) => t.id === 'TXXX:AIGC');
      expect(txxx.map((t) => t.value)).toEqual([AIGC]);
    }
  });

  it('fails the hash binding when one byte of the audio changes, or one of the AIGC field', async () => {
    const start = audioStart(signed, format);
    const audioFlip = signed.slice();
    audioFlip[start + Math.floor((signed.length - start) / 3)]! ^= 0x01;
    const aigcFlip = signed.slice();
    const at = Buffer.from(signed).indexOf('test-operator');
    expect(at).toBeGreaterThan(0);
    aigcFlip[at]! ^= 0x20;
    for (const changed of [audioFlip, aigcFlip]) {
      const report = await readC2pa(changed, MIME[format]);
      expect(report).toMatchObject({ present: true, valid: false, validationState: 'Invalid' });
      expect(report.errors.some((e) => e.startsWith('assertion.dataHash.mismatch'))).toBe(true);
    }
  });

  it('reads the same in its own thread (the public check reads there), and the caller keeps its bytes', async () => {
    const changed = signed.slice();
    changed[signed.length - 1000]! ^= 0x01;
    for (const file of [signed, changed, audio[format], new Uint8Array(100)]) {
      const copy = file.slice();
      expect(await readC2paInThread(copy, MIME[format], { trustAnchorsPem: rootPem })).toEqual(
        await readC2pa(file, MIME[format], { trustAnchorsPem: rootPem }),
      );
      expect(copy).toEqual(file);
    }
  });

  it('fails when the manifest itself is changed: an assertion, or the claim signature', async () => {
    const inAssertion = signed.slice();
    inAssertion[Buffer.from(signed).indexOf('v_clone_7') + 2]! ^= 0x01;
    const report = await readC2pa(inAssertion, MIME[format]);
    expect(report).toMatchObject({ present: true, valid: false, validationState: 'Invalid' });
    expect(report.errors.some((e) => e.startsWith('assertion.hashedURI.mismatch'))).toBe(true);

    // The signature is the last 64 bytes of the COSE_Sign1, which is the end of the manifest store: at the very end
    // of a wav (its C2PA chunk comes last), and the end of the GEOB frame in the mp3's tag.
    const end = format === 'wav' ? signed.length : id3Size(signed);
    const inSignature = signed.slice();
    inSignature[end - 10]! ^= 0x01;
    const bad = await readC2pa(inSignature, MIME[format]);
    expect(bad).toMatchObject({ present: true, valid: false, validationState: 'Invalid' });
    expect(bad.errors.some((e) => e.startsWith('claimSignature.mismatch'))).toBe(true);
  });

  it('a file without a manifest, and garbage, read as not present without throwing', async () => {
    expect(await readC2pa(audio[format], MIME[format])).toEqual({
      present: false,
      valid: false,
      validationState: '',
      claimGenerator: null,
      errors: [],
    });
    for (const junk of [new Uint8Array(0), new Uint8Array(4096).fill(0xff), signed.subarray(0, 40), signed.subarray(200)]) {
      await expect(readC2pa(junk, MIME[format])).resolves.toMatchObject({ present: false, valid: false });
    }
  });
});

it('every kind of voice is named in the manifest, signed concurrently (one wasm instance serves them all)', async () => {
  const kinds = ['library', 'mix', 'designed', 'clone'] as const;
  const reports = await Promise.all(
    kinds.flatMap((voiceKind) =>
      (['mp3', 'wav'] as const).map(async (format) => {
        const signed = await signAudio(audio[format], format, claim({ voiceKind, produceId: `pv_${voiceKind}` }), signer);
        return readC2pa(signed, format === 'mp3' ? 'audio/mp3' : 'audio/x-wav');
      }),
    ),
  );
  expect(reports.map((r) => [r.valid, r.voiceKind, r.produceId])).toEqual(
    kinds.flatMap((k) => [
      [true, k, `pv_${k}`],
      [true, k, `pv_${k}`],
    ]),
  );
});

it('signs a file that is a view into a larger buffer (a pooled Buffer) as exactly its own bytes', async () => {
  for (const format of ['mp3', 'wav'] as const) {
    // Bytes before and after the file in the same memory: a reader that took the view's whole .buffer would see them.
    const pool = Buffer.concat([Buffer.alloc(100_003, 0x55), Buffer.from(audio[format]), Buffer.alloc(70_001, 0xaa)]);
    const view = pool.subarray(100_003, 100_003 + audio[format].length);
    const signed = await signAudio(view, format, claim({ produceId: `pv_view_${format}` }), signer);
    await expect(readC2pa(signed, MIME[format])).resolves.toMatchObject({
      present: true,
      valid: true,
      produceId: `pv_view_${format}`,
    });
  }
});

it('an unknown media type reads as not present', async () => {
  await expect(readC2pa(audio.mp3, 'text/plain')).resolves.toMatchObject({ present: false });
});

/** An end-entity certificate issued by `ca`, valid for `days`, with the profile C2PA asks for (and `eku`). */
async function issue(
  ca: { key: webcrypto.CryptoKey; cert: x509.X509Certificate },
  curve: 'P-256' | 'P-384',
  subject: string,
  days: number,
  eku = '1.3.6.1.5.5.7.3.4',
): Promise<{ certPem: string; keyPem: string }> {
  const alg = { name: 'ECDSA', namedCurve: curve, hash: curve === 'P-256' ? 'SHA-256' : 'SHA-384' };
  const keys = await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify']);
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: '0b',
    subject,
    issuer: ca.cert.subject,
    notBefore: new Date(Date.now() - 86_400_000),
    notAfter: new Date(Date.now() + days * 86_400_000),
    publicKey: keys.publicKey,
    signingKey: ca.key,
    signingAlgorithm: { ...alg, hash: ca.cert.signatureAlgorithm.hash.name },
    extensions: [
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([eku], false),
      await x509.AuthorityKeyIdentifierExtension.create(ca.cert, false),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  return { certPem: `${cert.toString('pem')}\n`, keyPem: `${x509.PemConverter.encode(der, 'PRIVATE KEY')}\n` };
}

/** An operator's own CA and P-384 signing certificate (with C2PA's signing EKU), as files. */
async function operatorChain(): Promise<{ certFile: string; keyFile: string; commonName: string }> {
  const alg = { name: 'ECDSA', namedCurve: 'P-384', hash: 'SHA-384' };
  const caKeys = await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify']);
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '0a',
    name: 'CN=Operator Root, O=Operator',
    notBefore: new Date(Date.now() - 86_400_000),
    notAfter: new Date(Date.now() + 365 * 86_400_000),
    keys: caKeys,
    signingAlgorithm: alg,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign, true),
      await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });
  const commonName = `Operator Signer ${Math.random().toString(36).slice(2, 8)}`;
  const leaf = await issue({ key: caKeys.privateKey, cert: ca }, 'P-384', `CN=${commonName}, O=Operator`, 365, C2PA_SIGNING_EKU);
  const dir = fs.mkdtempSync(path.join(scratch, 'operator-'));
  const certFile = path.join(dir, 'chain.pem');
  const keyFile = path.join(dir, 'key.pem');
  fs.writeFileSync(certFile, leaf.certPem + ca.toString('pem'));
  fs.writeFileSync(keyFile, leaf.keyPem);
  return { certFile, keyFile, commonName };
}
