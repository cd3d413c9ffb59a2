/**
 * The key and certificate chain C2PA manifests are signed with: the operator's (C2PA_CERT_FILE, C2PA_KEY_FILE), or
 * one the server makes on first start and keeps in DATA_DIR/c2pa.
 *
 * C2PA readers refuse a self-signed end-entity certificate, so the server makes a small chain: a root CA of its own,
 * and an end-entity certificate it issues with the profile C2PA requires (digitalSignature key usage, the
 * emailProtection EKU, not a CA). A reader says such a signer is untrusted (it is on no trust list) while the
 * signature and the hash binding validate; an operator who wants "trusted" brings a certificate from a CA on the
 * C2PA trust list.
 */
import 'reflect-metadata'; // @peculiar/x509's dependency injection needs the Reflect metadata API loaded first
import { createPrivateKey, randomBytes, webcrypto, X509Certificate } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import * as x509 from '@peculiar/x509';

export interface C2paSigner {
  /** PEM certificates, the end-entity one first, then the certificates that issued it. */
  certChainPem: string;
  /** The end-entity certificate's private key, PEM (PKCS#8 or SEC1 for EC). */
  privateKeyPem: string;
}

export interface SignerOptions {
  dataDir: string;
  /** The operator's chain and key (PEM file paths); both or neither. */
  certFile?: string;
  keyFile?: string;
  /** Who signs: the O= of the certificates the server makes. */
  organization: string;
}

const FOLDER = 'c2pa';
const CA_FILE = 'root-ca.pem'; // the root's key and certificate
const SIGNER_FILE = 'signer.pem'; // the end-entity key, then its chain
const DAY_MS = 86_400_000;
// Without a time stamp (the server works offline), a reader checks the certificate against the time of reading: a
// file validates only while its certificate does, so the end-entity certificate lives long and is renewed a year
// before it ends (files signed with the old one stop validating when it ends).
const ROOT_DAYS = 30 * 365;
const SIGNER_DAYS = 10 * 365;
const RENEW_BEFORE_DAYS = 365;
const EMAIL_PROTECTION = '1.3.6.1.5.5.7.3.4';
const EC_P256 = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

export async function loadOrCreateSigner(opts: SignerOptions): Promise<C2paSigner> {
  if (opts.certFile || opts.keyFile) {
    if (!opts.certFile || !opts.keyFile) throw new Error('C2PA_CERT_FILE and C2PA_KEY_FILE are set together');
    const [certChainPem, privateKeyPem] = await Promise.all([
      fs.readFile(opts.certFile, 'utf8'),
      fs.readFile(opts.keyFile, 'utf8'),
    ]);
    return checkedSigner({ certChainPem, privateKeyPem }, `${opts.certFile} and ${opts.keyFile}`);
  }
  const dir = path.join(opts.dataDir, FOLDER);
  const existing = await readOwn(dir);
  if (existing) {
    if (Date.parse(existing.signerCert.validTo) - Date.now() > RENEW_BEFORE_DAYS * DAY_MS) return existing.signer;
    const renewed = await issueSigner(existing.root, opts.organization);
    await writeAtomically(path.join(dir, SIGNER_FILE), renewed.privateKeyPem + renewed.certChainPem);
    return renewed;
  }
  return createOwn(dir, opts.organization);
}

/**
 * The last certificate of the signer's chain (the server's own root, or the top of an operator's chain), for
 * readC2pa's trustAnchorsPem: with it the server's own files read as Trusted rather than only Valid.
 */
export function signerAnchorPem(signer: C2paSigner): string {
  const certs = pemBlocks(signer.certChainPem, /^CERTIFICATE$/);
  return certs[certs.length - 1] ?? '';
}

/** Splits a PEM bundle into its blocks of one kind (CERTIFICATE, PRIVATE KEY, EC PRIVATE KEY). */
function pemBlocks(pem: string, kind: RegExp): string[] {
  const blocks = pem.match(/-----BEGIN ([A-Z0-9 ]+)-----[\s\S]+?-----END \1-----/g) ?? [];
  return blocks.filter((b) => kind.test(/-----BEGIN ([A-Z0-9 ]+)-----/.exec(b)?.[1] ?? '')).map((b) => `${b}\n`);
}

/** Parses and checks a chain and key, and returns them normalized (the key as PKCS#8). */
function checkedSigner(raw: C2paSigner, where: string, requireCurrent = true): C2paSigner {
  const certs = pemBlocks(raw.certChainPem, /^CERTIFICATE$/);
  if (certs.length === 0) throw new Error(`C2PA: no certificate in ${where}`);
  const [keyPem] = pemBlocks(raw.privateKeyPem, /PRIVATE KEY$/);
  if (!keyPem) throw new Error(`C2PA: no private key in ${where}`);
  let parsed: X509Certificate[];
  let key: ReturnType<typeof createPrivateKey>;
  try {
    parsed = certs.map((c) => new X509Certificate(c));
    key = createPrivateKey(keyPem);
  } catch (e) {
    throw new Error(`C2PA: cannot read ${where}: ${(e as Error).message}`, { cause: e });
  }
  const leaf = parsed[0]!;
  if (!leaf.checkPrivateKey(key)) throw new Error(`C2PA: the key in ${where} is not the first certificate's`);
  const now = Date.now();
  if (requireCurrent && (Date.parse(leaf.validTo) < now || Date.parse(leaf.validFrom) > now)) {
    throw new Error(`C2PA: the certificate in ${where} is valid from ${leaf.validFrom} to ${leaf.validTo}`);
  }
  for (let i = 1; i < parsed.length; i++) {
    if (!parsed[i - 1]!.checkIssued(parsed[i]!)) throw new Error(`C2PA: ${where}: certificate ${i + 1} did not issue ${i}`);
  }
  return {
    certChainPem: parsed.map((c) => c.toString()).join(''),
    privateKeyPem: key.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}

interface Own {
  signer: C2paSigner;
  signerCert: X509Certificate;
  root: { key: webcrypto.CryptoKey; cert: x509.X509Certificate };
}

async function readOwn(dir: string): Promise<Own | null> {
  let caPem: string;
  let signerPem: string;
  try {
    [caPem, signerPem] = await Promise.all([
      fs.readFile(path.join(dir, CA_FILE), 'utf8'),
      fs.readFile(path.join(dir, SIGNER_FILE), 'utf8'),
    ]);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  const where = path.join(dir, SIGNER_FILE);
  // Its own certificate may have ended while the server was stopped: it is renewed, not refused.
  const signer = checkedSigner({ certChainPem: signerPem, privateKeyPem: signerPem }, where, false);
  const [rootKeyPem] = pemBlocks(caPem, /PRIVATE KEY$/);
  const [rootCertPem] = pemBlocks(caPem, /^CERTIFICATE$/);
  if (!rootKeyPem || !rootCertPem) throw new Error(`C2PA: ${path.join(dir, CA_FILE)} lacks its key or certificate`);
  const rootKeyDer = createPrivateKey(rootKeyPem).export({ type: 'pkcs8', format: 'der' });
  const key = await webcrypto.subtle.importKey('pkcs8', rootKeyDer, EC_P256, false, ['sign']);
  const signerCert = new X509Certificate(pemBlocks(signer.certChainPem, /^CERTIFICATE$/)[0]!);
  return { signer, signerCert, root: { key, cert: new x509.X509Certificate(rootCertPem) } };
}

/** Makes the root and the signer in a fresh folder and moves it into place; a process that loses the race uses the winner's. */
async function createOwn(dir: string, organization: string): Promise<C2paSigner> {
  await fs.mkdir(path.dirname(dir), { recursive: true });
  const tmp = `${dir}.tmp-${randomBytes(6).toString('hex')}`;
  await fs.mkdir(tmp, { mode: 0o700 });
  try {
    const rootKeys = await webcrypto.subtle.generateKey(EC_P256, true, ['sign', 'verify']);
    const root = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: serial(),
      name: dn(`${organization} Polyvox C2PA Root`, organization),
      notBefore: new Date(Date.now() - DAY_MS),
      notAfter: new Date(Date.now() + ROOT_DAYS * DAY_MS),
      keys: rootKeys,
      signingAlgorithm: EC_P256,
      extensions: [
        new x509.BasicConstraintsExtension(true, 0, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
        await x509.SubjectKeyIdentifierExtension.create(rootKeys.publicKey),
      ],
    });
    const rootKeyPem = await pkcs8Pem(rootKeys.privateKey);
    await fs.writeFile(path.join(tmp, CA_FILE), rootKeyPem + root.toString('pem') + '\n', { mode: 0o600 });
    const signer = await issueSigner({ key: rootKeys.privateKey, cert: root }, organization);
    await fs.writeFile(path.join(tmp, SIGNER_FILE), signer.privateKeyPem + signer.certChainPem, { mode: 0o600 });
    try {
      await fs.rename(tmp, dir);
      return signer;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST' && code !== 'ENOTEMPTY') throw e;
      const own = await readOwn(dir);
      if (!own) throw e;
      return own.signer;
    }
  } finally {
    await fs.rm(tmp, { recursive: true, force: true });
  }
}

async function issueSigner(root: Own['root'], organization: string): Promise<C2paSigner> {
  const keys = await webcrypto.subtle.generateKey(EC_P256, true, ['sign', 'verify']);
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: dn(`${organization} Polyvox C2PA Signer`, organization),
    issuer: root.cert.subjectName,
    notBefore: new Date(Date.now() - DAY_MS),
    notAfter: new Date(Math.min(Date.now() + SIGNER_DAYS * DAY_MS, root.cert.notAfter.getTime())),
    publicKey: keys.publicKey,
    signingKey: root.key,
    signingAlgorithm: EC_P256,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([EMAIL_PROTECTION], false),
      await x509.AuthorityKeyIdentifierExtension.create(root.cert, false),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return {
    certChainPem: `${cert.toString('pem')}\n${root.cert.toString('pem')}\n`,
    privateKeyPem: await pkcs8Pem(keys.privateKey),
  };
}

function dn(commonName: string, organization: string): x509.Name {
  return new x509.Name([{ CN: [commonName] }, { O: [organization] }]);
}

/** 16 random bytes, the top bit clear so the DER integer stays positive. */
function serial(): string {
  const b = randomBytes(16);
  b[0]! &= 0x7f;
  return b.toString('hex');
}

async function pkcs8Pem(key: webcrypto.CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', key));
  return x509.PemConverter.encode(der, 'PRIVATE KEY') + '\n';
}

async function writeAtomically(file: string, text: string): Promise<void> {
  const tmp = `${file}.tmp-${randomBytes(6).toString('hex')}`;
  await fs.writeFile(tmp, text, { mode: 0o600 });
  await fs.rename(tmp, file);
}
