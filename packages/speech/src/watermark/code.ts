/**
 * The payload's code: 32 bits, a CRC-16 (CCITT) over them, then the rate-1/2 convolutional code of
 * constraint length 7 (generators 171 and 133 octal, the NASA standard), zero-terminated, decoded by
 * soft-decision Viterbi. The CRC turns a decoding error into "no payload" instead of a wrong one.
 */
export const PAYLOAD_BITS = 32;
const CRC_BITS = 16;
const INFO_BITS = PAYLOAD_BITS + CRC_BITS;
const K = 7;
const STATES = 1 << (K - 1);
const G1 = 0o171,
  G2 = 0o133;
export const CODED_BITS = (INFO_BITS + K - 1) * 2;

function crc16(bits: Uint8Array, n: number): number {
  let crc = 0xffff;
  for (let i = 0; i < n; i++) {
    const top = ((crc >> 15) & 1) ^ bits[i]!;
    crc = ((crc << 1) & 0xffff) ^ (top ? 0x1021 : 0);
  }
  return crc;
}

const parity = (x: number): number => {
  x ^= x >> 4;
  x ^= x >> 2;
  x ^= x >> 1;
  return x & 1;
};

function infoBits(payload: number): Uint8Array {
  const bits = new Uint8Array(INFO_BITS + K - 1);
  for (let i = 0; i < PAYLOAD_BITS; i++) bits[i] = (payload >>> (PAYLOAD_BITS - 1 - i)) & 1;
  const crc = crc16(bits, PAYLOAD_BITS);
  for (let i = 0; i < CRC_BITS; i++) bits[PAYLOAD_BITS + i] = (crc >> (CRC_BITS - 1 - i)) & 1;
  return bits;
}

/** The coded bits (0/1) of a 32-bit payload. */
export function encodePayload(payload: number): Uint8Array {
  const bits = infoBits(payload >>> 0);
  const out = new Uint8Array(CODED_BITS);
  let reg = 0;
  for (let i = 0; i < bits.length; i++) {
    reg = ((reg << 1) | bits[i]!) & ((1 << K) - 1);
    out[2 * i] = parity(reg & G1);
    out[2 * i + 1] = parity(reg & G2);
  }
  return out;
}

/**
 * Decodes soft values (positive for 0, negative for 1, zero for unknown) into the payload, or null
 * when the CRC fails.
 */
export function decodePayload(soft: Float64Array): number | null {
  const steps = INFO_BITS + K - 1;
  let metric = new Float64Array(STATES).fill(-Infinity);
  let next = new Float64Array(STATES);
  metric[0] = 0;
  const from = new Uint8Array(steps * STATES);
  for (let i = 0; i < steps; i++) {
    next.fill(-Infinity);
    const s1 = soft[2 * i]!,
      s2 = soft[2 * i + 1]!;
    const maxInput = i < INFO_BITS ? 1 : 0;
    for (let s = 0; s < STATES; s++) {
      const m = metric[s]!;
      if (m === -Infinity) continue;
      for (let b = 0; b <= maxInput; b++) {
        const reg = (s << 1) | b;
        const o1 = parity(reg & G1),
          o2 = parity(reg & G2);
        const v = m + (o1 ? -s1 : s1) + (o2 ? -s2 : s2);
        const ns = reg & (STATES - 1);
        if (v > next[ns]!) {
          next[ns] = v;
          from[i * STATES + ns] = s;
        }
      }
    }
    [metric, next] = [next, metric];
  }
  const bits = new Uint8Array(steps);
  let s = 0;
  for (let i = steps - 1; i >= 0; i--) {
    bits[i] = s & 1;
    s = from[i * STATES + s]!;
  }
  let payload = 0;
  for (let i = 0; i < PAYLOAD_BITS; i++) payload = (payload << 1) | bits[i]!;
  let crc = 0;
  for (let i = 0; i < CRC_BITS; i++) crc = (crc << 1) | bits[PAYLOAD_BITS + i]!;
  return crc16(bits, PAYLOAD_BITS) === crc ? payload >>> 0 : null;
}
