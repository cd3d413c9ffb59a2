import { randomBytes } from 'node:crypto';

/** The registry of ID prefixes: every stored object's id starts with one of these. */
export const ID_PREFIX = {
  account: 'acc',
  voice: 'voice',
  order: 'ord',
  apiKey: 'key',
  file: 'file',
  preview: 'prv',
  record: 'rec',
  request: 'req',
  hold: 'hold',
  code: 'vc',
  device: 'dev',
  job: 'job',
  payment: 'pay',
  event: 'evt',
  /** A piece of audio that left the platform: the ProduceID of its AIGC label. */
  content: 'aigc',
  /** A pronunciation dictionary, and each version of its rules. */
  dictionary: 'pd',
  dictionaryVersion: 'pdv',
  /** A remote speech provider added in the console, and a model install started there. */
  provider: 'prov',
  modelInstall: 'mdl',
  /** A 发票 request. */
  invoice: 'inv',
  /** An audit trail entry. */
  audit: 'aud',
  /** An operator's recovery code. */
  recoveryCode: 'rc',
  /** A batch of redemption codes, one of its codes, and one use of a code. */
  codeBatch: 'cbt',
  redemptionCode: 'rdc',
  redemption: 'rdm',
  /** A word of the operator's moderation list, and a text moderation refused. */
  moderationTerm: 'mdt',
  moderationHit: 'mdh',
  /** A protected voice, and a report of misuse. */
  protectedVoice: 'pvc',
  report: 'rpt',
  /** A Studio project, one of its chapters, and a paragraph of a chapter. */
  studioProject: 'sp',
  studioChapter: 'sc',
  studioParagraph: 'spg',
  /** A generation in the account's history (ElevenLabs' history item). */
  historyItem: 'hist',
  /** A snapshot of a Studio conversion, and a paragraph's stored audio. */
  studioSnapshot: 'sss',
  studioAudio: 'sau',
} as const;

export type IdKind = keyof typeof ID_PREFIX;

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';
let lastTime = 0;
let counter = 0;

/** Ids that sort by creation within a process (time, then a counter) and end in 12 random characters. */
export function newId(kind: IdKind): string {
  // Never behind the last id: a clock that steps back, or a full counter (3 digits), borrows the next millisecond.
  let now = Math.max(Date.now(), lastTime);
  counter = now === lastTime ? counter + 1 : 0;
  if (counter >= 36 ** 3) {
    now += 1;
    counter = 0;
  }
  lastTime = now;
  const time = now.toString(36).padStart(9, '0') + counter.toString(36).padStart(3, '0');
  let tail = '';
  for (const b of randomBytes(12)) tail += ALPHABET[b % 36];
  return `${ID_PREFIX[kind]}_${time}${tail}`;
}

export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}
