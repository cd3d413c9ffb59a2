import type { Kysely } from 'kysely';
import type { Database, OwnVoicesTable } from '../platform/db/schema.js';
import { AppError } from '../platform/errors.js';

/** How deep mixes of mixes are followed when a voice is taken down. */
const MIX_DEPTH = 10;

/** What a takedown reached: the reported voice (an account's, or the library's) and the saved mixes taken with it. */
export interface TakenDown {
  /** The account's voice reported; null for an official library voice. */
  own: OwnVoicesTable | null;
  /** The saved mixes made with it (and mixes of those), of any account, taken down with it. */
  mixes: OwnVoicesTable[];
}

/**
 * Takes the voice `voiceId` down in the transaction: an account's voice (designed, mixed or cloned) is marked, an
 * official one is withheld from the library (`voice_takedowns`); then every saved mix made with it, to any depth,
 * is marked too (a mix keeps its blend). NOT_FOUND when the id names neither.
 */
export async function takeDownVoice(
  trx: Kysely<Database>,
  voiceId: string,
  official: (id: string) => Promise<boolean>,
  by: { operatorId: string; reportId: string; at: string },
): Promise<TakenDown> {
  const own = await trx.selectFrom('own_voices').selectAll().where('id', '=', voiceId).executeTakeFirst();
  if (own) {
    await trx
      .updateTable('own_voices')
      .set({ taken_down_at: by.at })
      .where('id', '=', own.id)
      .where('taken_down_at', 'is', null)
      .execute();
  } else {
    const already = await trx.selectFrom('voice_takedowns').select('voice_id').where('voice_id', '=', voiceId).executeTakeFirst();
    if (!already && !(await official(voiceId))) throw new AppError('NOT_FOUND');
    if (!already)
      await trx
        .insertInto('voice_takedowns')
        .values({ voice_id: voiceId, report_id: by.reportId, taken_down_by: by.operatorId, taken_down_at: by.at })
        .execute();
  }
  const mixes: OwnVoicesTable[] = [];
  let wave = [voiceId];
  for (let depth = 0; wave.length && depth < MIX_DEPTH; depth++) {
    const ids = new Set(wave);
    const candidates = await trx
      .selectFrom('own_voices')
      .selectAll()
      .where('taken_down_at', 'is', null)
      .where((eb) => eb.or(wave.map((id) => eb('mix', 'like', `%${id}%`))))
      .execute();
    const hit = candidates.filter((c) => (JSON.parse(c.mix ?? '[]') as { voice_id: string }[]).some((e) => ids.has(e.voice_id)));
    if (hit.length)
      await trx
        .updateTable('own_voices')
        .set({ taken_down_at: by.at })
        .where(
          'id',
          'in',
          hit.map((h) => h.id),
        )
        .execute();
    mixes.push(...hit);
    wave = hit.map((h) => h.id);
  }
  return { own: own ?? null, mixes };
}

/** The voiceprint of an own voice's clone sample, or none. */
export async function sampleVoiceprint(trx: Kysely<Database>, voice: OwnVoicesTable | null | undefined): Promise<number[]> {
  if (!voice?.file_id) return [];
  const sample = await trx.selectFrom('voice_samples').select('measures').where('id', '=', voice.file_id).executeTakeFirst();
  return sample ? ((JSON.parse(sample.measures) as { measures?: { voiceprint?: number[] } }).measures?.voiceprint ?? []) : [];
}
