/**
 * The provenance stage every piece of audio passes on its way out (DESIGN.md, rule 14): a record of who made it with
 * which voice, the GB 45438-2025 `AIGC` label in its container (or a header, for raw PCM and G.711), and for whole
 * wav and mp3 files a signed C2PA manifest. The watermark is in the sound already (the speech package embeds it
 * before encoding, keyed from the same secret); its payload is stored with the record.
 */
import type { Kysely } from 'kysely';
import { withAigc, type AigcRecord, type LabelledContainer } from '@polyvox/speech/formats';
import type { Database } from '../platform/db/schema.js';
import { newId } from '../platform/ids.js';
import { AudioDigest, aigcHeader, audioDigest, sealRecord } from './aigc.js';
import type { ProvenanceKeys } from './keys.js';
import { ContentMarks } from './marks.js';
import { StreamLabeller } from './stream-label.js';

export type VoiceKind = 'library' | 'mix' | 'designed' | 'clone';

/** The voice types of the catalogue and own voices, as the kinds a C2PA manifest and the records name. */
export function voiceKindOf(type: string | undefined): VoiceKind {
  if (type === 'mix') return 'mix';
  if (type === 'prompt') return 'designed';
  if (type === 'clone') return 'clone';
  return 'library';
}

export interface ContentOrigin {
  accountId: string | null;
  apiKeyId?: string | null;
  holdId?: string | null;
  requestId?: string | null;
  /** What the audio was made for: tts, api, preview, library-preview, job, … */
  recordType: string;
  voiceId: string;
  voiceKind: VoiceKind;
  engine: string;
  format: string;
  /** The watermark payload in its sound, or null when none was embedded. */
  payload: number | null;
  /** A clone's sample: the record keeps its hash and when its uploader consented. */
  sampleId?: string | null;
}

type SampleOrigin = { sha256: string | null; consent_at: string };

export interface ContentMark {
  produceId: string;
  record: AigcRecord;
  createdAt: Date;
  origin: ContentOrigin;
}

/** A signer of whole files (C2PA), where the deployment has one. */
export interface FileSigner {
  sign(file: Buffer, container: 'wav' | 'mp3', mark: ContentMark): Promise<Buffer>;
  /**
   * The unlabelled file labelled (its AIGC field), its audio digest taken and the result signed, where the signer can do
   * all three off the event loop (a whole file's copy and hash are milliseconds each).
   */
  labelAndSign?(file: Buffer, container: 'wav' | 'mp3', mark: ContentMark): Promise<{ file: Buffer; digest: string }>;
}

/** How bytes of a content type carry the label: in their container, or (raw samples) beside them in a header. */
export function containerOf(contentType: string): LabelledContainer | 'header' {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  if (type === 'audio/mpeg') return 'mp3';
  if (type === 'audio/wav' || type === 'audio/x-wav' || type === 'audio/wave') return 'wav';
  if (type === 'audio/ogg' || type === 'audio/opus') return 'opus';
  return 'header';
}

export interface ProvenanceOptions {
  db: Kysely<Database>;
  keys: ProvenanceKeys;
  /** GB 45438 ContentProducer and ContentPropagator (settings). */
  producer: string;
  propagator: string;
  signer?: FileSigner | null;
}

export class Provenance {
  readonly marks: ContentMarks;
  private readonly keys: ProvenanceKeys;
  private readonly producer: string;
  private readonly propagator: string;
  private readonly signer: FileSigner | null;

  constructor(options: ProvenanceOptions) {
    this.marks = new ContentMarks(options.db);
    this.keys = options.keys;
    this.producer = options.producer;
    this.propagator = options.propagator;
    this.signer = options.signer ?? null;
  }

  get watermarkKey(): Uint8Array {
    return this.keys.watermark;
  }

  get aigcKey(): Buffer {
    return this.keys.aigc;
  }

  /** A new piece of content: its ProduceID, its sealed AIGC record, and its row, written before any of it is sent. */
  async mark(origin: ContentOrigin): Promise<ContentMark> {
    const made = await this.newMark(origin);
    await this.record(made);
    return made.mark;
  }

  /**
   * A whole file recorded and labelled: its row is written while the file is labelled and signed (both are awaited
   * before the file is given out), so a request waits for the longer of the two, not their sum.
   */
  async markFile(audio: Buffer, contentType: string, origin: ContentOrigin): Promise<{ mark: ContentMark; audio: Buffer }> {
    const made = await this.newMark(origin);
    // Labelling and signing leave the sound's bytes as they are: the unlabelled file's hash is the labelled one's.
    const container = containerOf(contentType);
    if (this.signer?.labelAndSign && (container === 'wav' || container === 'mp3')) {
      // All three in the signing thread; the row, which needs the digest, is written as soon as it is known.
      const signed = await this.signer.labelAndSign(audio, container, made.mark);
      await this.record(made, signed.digest);
      return { mark: made.mark, audio: signed.file };
    }
    const sha256 = container === 'header' ? null : audioDigest(audio, container);
    const [labelled] = await Promise.all([this.labelFile(audio, contentType, made.mark), this.record(made, sha256)]);
    return { mark: made.mark, audio: labelled };
  }

  /** The content's ProduceID and sealed record, not yet written. */
  private async newMark(origin: ContentOrigin): Promise<{ mark: ContentMark; sample: SampleOrigin | undefined }> {
    const produceId = newId('content');
    const createdAt = new Date();
    const sample = origin.sampleId ? await this.marks.sample(origin.sampleId) : undefined;
    const record = sealRecord(this.keys.aigc, {
      ContentProducer: this.producer,
      ProduceID: produceId,
      ContentPropagator: this.propagator,
      PropagateID: this.propagator ? produceId : '',
      ReservedCode2: '',
    });
    return { mark: { produceId, record, createdAt, origin }, sample };
  }

  /** The content's row (with a clone sample's hash and consent), which must exist before the content is reachable. */
  private async record(
    {
      mark: { produceId, createdAt, origin },
      sample,
    }: {
      mark: ContentMark;
      sample: SampleOrigin | undefined;
    },
    audioSha256: string | null = null,
  ): Promise<void> {
    await this.marks.insert({
      produce_id: produceId,
      payload: origin.payload,
      account_id: origin.accountId,
      api_key_id: origin.apiKeyId ?? null,
      hold_id: origin.holdId ?? null,
      request_id: origin.requestId ?? null,
      record_type: origin.recordType,
      voice_id: origin.voiceId,
      voice_kind: origin.voiceKind,
      engine: origin.engine,
      format: origin.format,
      sample_id: origin.sampleId ?? null,
      sample_sha256: sample?.sha256 ?? null,
      consent_at: sample?.consent_at ?? null,
      created_at: createdAt.toISOString(),
      audio_sha256: audioSha256,
    });
  }

  /** The header that carries the label of audio without a container (`x-aigc`), or null when the bytes carry it. */
  header(contentType: string, mark: ContentMark): string | null {
    return containerOf(contentType) === 'header' ? aigcHeader(mark.record) : null;
  }

  /** A whole file, labelled: its AIGC field in its container, then (wav and mp3) a signed C2PA manifest over it all. */
  async labelFile(audio: Buffer, contentType: string, mark: ContentMark): Promise<Buffer> {
    const container = containerOf(contentType);
    if (container === 'header') return audio;
    const labelled = Buffer.from(withAigc(audio, container, mark.record));
    if (this.signer && (container === 'wav' || container === 'mp3')) return this.signer.sign(labelled, container, mark);
    return labelled;
  }

  /** A whole file recorded and labelled in one step (previews, stored files). */
  async labelled(audio: Buffer, contentType: string, origin: ContentOrigin): Promise<Buffer> {
    return (await this.markFile(audio, contentType, origin)).audio;
  }

  /**
   * A stream's chunks with its AIGC field written at its start (a C2PA manifest needs the whole file: none). Its
   * record is written as its first chunk comes (a stream refused before any audio leaves none); `header()` is the
   * `x-aigc` value for raw samples once that first chunk is out, `mark()` the record itself.
   */
  labelStream<T>(
    chunks: AsyncGenerator<Buffer, T>,
    contentType: string,
    origin: ContentOrigin,
    /** The generator yields one whole file (an answer built whole, then sent): labelled and signed as a file. */
    opts: { whole?: boolean } = {},
  ): { chunks: AsyncGenerator<Buffer, T>; header: () => string | null; mark: () => ContentMark | null } {
    const container = containerOf(contentType);
    let mark: ContentMark | null = null;
    if (opts.whole) {
      const label = async (file: Buffer) => {
        const marked = await this.markFile(file, contentType, origin);
        mark = marked.mark;
        return marked.audio;
      };
      return {
        chunks: labelWhole(chunks, label),
        header: () => (mark && container === 'header' ? aigcHeader(mark.record) : null),
        mark: () => mark,
      };
    }
    const labeller = new StreamLabeller(container === 'header' ? null : container, async () => {
      mark = await this.mark(origin);
      return mark.record;
    });
    const labelled = labeller.wrap(chunks);
    return {
      chunks:
        container === 'header'
          ? labelled
          : digested(labelled, new AudioDigest(container), (sha256) =>
              mark ? this.marks.setAudioDigest(mark.produceId, sha256) : Promise.resolve(),
            ),
      header: () => (mark && container === 'header' ? aigcHeader(mark.record) : null),
      /** The stream's record, once its first chunk is out (a socket's WAV header carries it). */
      mark: () => mark,
    };
  }
}

/** A generator of one whole file, that file labelled (its other chunks, if any, are refused: it must be whole). */
async function* labelWhole<T>(
  chunks: AsyncGenerator<Buffer, T>,
  label: (file: Buffer) => Promise<Buffer>,
): AsyncGenerator<Buffer, T> {
  try {
    const first = await chunks.next();
    if (first.done) return first.value;
    const labelled = await label(first.value);
    const next = await chunks.next();
    if (!next.done) throw new Error('a whole file came in more than one chunk');
    yield labelled;
    return next.value;
  } finally {
    await chunks.return(undefined as T);
  }
}

/**
 * A stream's chunks passed on while their sound is hashed; when it ends (whole, or stopped by its reader), the hash
 * of what left is stored before the generator returns, so a file saved from a finished stream binds at once. A
 * failed write leaves the record unbound (its label then vouches for nothing; the watermark still names it), never
 * an error in a stream already delivered.
 */
async function* digested<T>(
  chunks: AsyncGenerator<Buffer, T>,
  digest: AudioDigest,
  store: (sha256: string) => Promise<void>,
): AsyncGenerator<Buffer, T> {
  let sent = false;
  try {
    for (;;) {
      const next = await chunks.next();
      if (next.done) return next.value;
      yield next.value;
      // Only what the reader took counts: it asks for the next chunk after taking this one.
      digest.update(next.value);
      sent = true;
    }
  } finally {
    if (sent) await store(digest.digest()).catch(() => undefined);
    await chunks.return(undefined as T);
  }
}
