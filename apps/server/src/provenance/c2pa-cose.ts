/**
 * The claim signature: a COSE_Sign1 (RFC 9052) over the claim, with the certificate chain in the protected header
 * (x5chain, RFC 9360) and the payload detached, as C2PA §14 writes it.
 *
 * c2pa-rs's WebAssembly build hands the claim bytes to a JavaScript callback that must return the whole COSE_Sign1
 * (its signer sets `direct_cose_handling`, and has no certificates or time-stamp authority of its own), so the
 * structure is made here: signed with node:crypto, no time stamp, nothing asked of the network. Without a time stamp
 * a reader checks the certificate against the time of reading (c2pa-keys.ts gives its own a long life).
 */
import { constants, createPrivateKey, sign, X509Certificate, type KeyObject } from 'node:crypto';
import { encode, Tag } from 'cbor2';
import type { C2paSigner } from './c2pa-keys.ts';

const COSE_SIGN1_TAG = 18;
const HEADER_ALG = 1;
const HEADER_X5CHAIN = 33;

/** The c2pa-rs name of the algorithm (its SignerDefinition's `alg`), and COSE's number for it. */
type Algorithm = { name: 'es256' | 'es384' | 'es512' | 'ps256' | 'ed25519'; cose: number; signatureBytes: number };

export interface CoseSigner {
  alg: Algorithm['name'];
  /** The exact size of every COSE_Sign1 this signer returns: c2pa-rs reserves it in the manifest before signing. */
  reserveSize: number;
  signClaim(claim: Uint8Array): Uint8Array;
}

const prepared = new WeakMap<C2paSigner, CoseSigner>();

/** The key parsed and the header encoded once per signer (a signer object lives as long as the process). */
export function coseSigner(signer: C2paSigner): CoseSigner {
  let s = prepared.get(signer);
  if (!s) {
    s = prepare(signer);
    prepared.set(signer, s);
  }
  return s;
}

function algorithmOf(key: KeyObject): Algorithm {
  const details = key.asymmetricKeyDetails ?? {};
  if (key.asymmetricKeyType === 'ec') {
    if (details.namedCurve === 'prime256v1') return { name: 'es256', cose: -7, signatureBytes: 64 };
    if (details.namedCurve === 'secp384r1') return { name: 'es384', cose: -35, signatureBytes: 96 };
    if (details.namedCurve === 'secp521r1') return { name: 'es512', cose: -36, signatureBytes: 132 };
  }
  if (key.asymmetricKeyType === 'ed25519') return { name: 'ed25519', cose: -8, signatureBytes: 64 };
  // C2PA allows RSA only with PSS padding.
  if ((key.asymmetricKeyType === 'rsa' || key.asymmetricKeyType === 'rsa-pss') && details.modulusLength) {
    return { name: 'ps256', cose: -37, signatureBytes: details.modulusLength / 8 };
  }
  throw new Error(`C2PA: keys of type ${key.asymmetricKeyType} ${details.namedCurve ?? ''} cannot sign manifests`);
}

function rawSign(alg: Algorithm['name'], key: KeyObject, data: Uint8Array): Uint8Array {
  switch (alg) {
    case 'es256':
      return sign('sha256', data, { key, dsaEncoding: 'ieee-p1363' });
    case 'es384':
      return sign('sha384', data, { key, dsaEncoding: 'ieee-p1363' });
    case 'es512':
      return sign('sha512', data, { key, dsaEncoding: 'ieee-p1363' });
    case 'ed25519':
      return sign(null, data, key);
    case 'ps256':
      return sign('sha256', data, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 });
  }
}

function prepare(signer: C2paSigner): CoseSigner {
  const key = createPrivateKey(signer.privateKeyPem);
  const alg = algorithmOf(key);
  const certs = (signer.certChainPem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []).map(
    (pem) => new Uint8Array(new X509Certificate(pem).raw),
  );
  if (certs.length === 0) throw new Error('C2PA: the signer has no certificate');
  const protectedHeader = encode(
    new Map<number, unknown>([
      [HEADER_ALG, alg.cose],
      [HEADER_X5CHAIN, certs.length === 1 ? certs[0] : certs],
    ]),
  );
  // Every signature of an algorithm has one length (P1363 for ECDSA, the modulus for RSA), so the structure's size
  // is known before signing and needs no padding.
  const sign1 = (signature: Uint8Array) => encode(new Tag(COSE_SIGN1_TAG, [protectedHeader, new Map(), null, signature]));
  const reserveSize = sign1(new Uint8Array(alg.signatureBytes)).length;
  return {
    alg: alg.name,
    reserveSize,
    signClaim(claim) {
      const toBeSigned = encode(['Signature1', protectedHeader, new Uint8Array(0), claim]);
      // A plain Uint8Array: cbor2 would write a Buffer through its toJSON.
      const signature = rawSign(alg.name, key, toBeSigned);
      const out = sign1(new Uint8Array(signature.buffer, signature.byteOffset, signature.byteLength));
      if (out.length !== reserveSize) throw new Error(`C2PA: a ${out.length}-byte signature for ${reserveSize} reserved`);
      return out;
    },
  };
}
