import type { StudioParagraphsTable, StudioProjectsTable } from '../platform/db/schema.js';
import { AppError } from '../platform/errors.js';
import type { Charge, SynthesisService } from '../synthesis/service.js';
import type { JobHandler } from '../synthesis/jobs/definition.js';
import type { Job, SynthesisJobs } from '../synthesis/jobs/service.js';
import { toJob } from '../synthesis/jobs/job-view.js';
import { studioConvertJob, type OwnHoldsContext, type StudioConvertPayload } from '../synthesis/jobs/studio.js';
import {
  closePending,
  recordFailure,
  speakParagraph,
  storedAudio,
  type ParagraphAudio,
  type ParagraphAudioDeps,
} from './paragraph-audio.js';
import { voiceOf } from './service.js';
import { recordSnapshots } from './snapshot.js';

export interface ConversionDeps extends ParagraphAudioDeps {
  jobs: Pick<SynthesisJobs, 'createOwn' | 'createOwnGroup' | 'runParts' | 'active'>;
  /** As a paragraph's, with the moderation step for the paragraphs a conversion would speak before its job is made. */
  synthesis: ParagraphAudioDeps['synthesis'] & Pick<SynthesisService, 'reviewTexts'>;
  /**
   * How many chapters of a whole project's conversion its own run speaks at once (the parts no worker took; default
   * 1). Through a queue the workers take the other parts; in one process, its speech threads.
   */
  partsWidth?: number;
}

/** The estimates of several parts added up. */
function sum(parts: Iterable<Estimate>): Estimate {
  const total: Estimate = { credits: 0, characters: 0, paragraphs: 0 };
  for (const part of parts) {
    total.credits += part.credits;
    total.characters += part.characters;
    total.paragraphs += part.paragraphs;
  }
  return total;
}

export interface Estimate {
  credits: number;
  characters: number;
  paragraphs: number;
}

/** What a project's conversions under way say of it: `in_queue` until a worker takes one, then `converting`. */
export interface ProjectActivity {
  state: 'converting' | 'in_queue';
  /** The chapters being converted; null in it: the whole project. */
  chapters: Set<string | null>;
  /** Paragraphs spoken of those to speak, over its conversions under way. */
  progress: { done: number; total: number };
}

/** The project's last finished conversion, when it failed: its job and error. */
export interface ConversionFailure {
  jobId: string;
  error: AppError;
  finishedAt: string | null;
}

/** Errors after which the next paragraphs would fail alike: the conversion stops there. */
const STOPS = new Set<string>(['INSUFFICIENT_BALANCE', 'KEY_LIMIT_REACHED', 'ACCOUNT_DISABLED']);

const changed = (p: Pick<StudioParagraphsTable, 'content_hash' | 'converted_hash'>) => p.converted_hash !== p.content_hash;
/** What a project's conversions' payloads contain, to find the active ones. */
const needle = (projectId: string, chapterId: string | null) =>
  `"projectId":"${projectId}","chapterId":${JSON.stringify(chapterId)}`;

/**
 * Converting Studio projects: the price of what changed, the durable job that speaks it (a hold per paragraph, so a
 * crash resumes where it stopped and charges nothing twice), one paragraph at once, and the snapshots a finished
 * conversion records.
 */
export class StudioConversion {
  constructor(private readonly deps: ConversionDeps) {}

  private async project(accountId: string, projectId: string): Promise<StudioProjectsTable> {
    const project = await this.deps.db
      .selectFrom('studio_projects')
      .selectAll()
      .where('id', '=', projectId)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    if (!project) throw new AppError('NOT_FOUND');
    return project;
  }

  /** The project and the paragraphs a conversion of it (or of one chapter) covers, in reading order. */
  private async scope(accountId: string, projectId: string, chapterId: string | null) {
    const project = await this.project(accountId, projectId);
    const chapters = await this.deps.db
      .selectFrom('studio_chapters')
      .select(['id', 'position'])
      .where('project_id', '=', projectId)
      .$if(chapterId !== null, (q) => q.where('id', '=', chapterId!))
      .orderBy('position')
      .execute();
    if (chapterId !== null && chapters.length === 0) throw new AppError('NOT_FOUND');
    const order = new Map(chapters.map((c, i) => [c.id, i]));
    const paragraphs = (
      await this.deps.db
        .selectFrom('studio_paragraphs')
        .selectAll()
        .where('project_id', '=', projectId)
        .$if(chapterId !== null, (q) => q.where('chapter_id', '=', chapterId!))
        .execute()
    ).sort((a, b) => order.get(a.chapter_id)! - order.get(b.chapter_id)! || a.position - b.position);
    return { project, chapters: chapters.map((c) => c.id), paragraphs };
  }

  /** What converting would cost: the changed paragraphs alone, each priced as its synthesis will be. Nothing held. */
  async estimate(accountId: string, projectId: string, chapterId: string | null = null): Promise<Estimate> {
    return sum((await this.estimates(accountId, projectId, chapterId)).byChapter.values());
  }

  /**
   * The estimate of each chapter with changed paragraphs, in reading order, and the texts those paragraphs would
   * speak (for the moderation step).
   */
  private async estimates(
    accountId: string,
    projectId: string,
    chapterId: string | null,
  ): Promise<{ byChapter: Map<string, Estimate>; texts: string[] }> {
    const { project, paragraphs } = await this.scope(accountId, projectId, chapterId);
    const locators = JSON.parse(project.pronunciation_locators) as { pronunciation_dictionary_id: string }[];
    const byChapter = new Map<string, Estimate>();
    const todo = paragraphs.filter(changed);
    for (const p of todo) {
      const price = await this.deps.synthesis.estimate(p.text, voiceOf(p, project), accountId, locators);
      const part = byChapter.get(p.chapter_id) ?? { credits: 0, characters: 0, paragraphs: 0 };
      part.credits += price.credits;
      part.characters += price.characters;
      part.paragraphs += 1;
      byChapter.set(p.chapter_id, part);
    }
    return { byChapter, texts: todo.map((p) => p.text) };
  }

  /** The project's conversions still queued or running (the newest first). */
  active(accountId: string, projectId: string, chapterId?: string | null): Promise<Job[]> {
    const what = chapterId === undefined ? `"projectId":"${projectId}"` : needle(projectId, chapterId);
    return this.deps.jobs.active(studioConvertJob.name, accountId, what);
  }

  /** What the account's conversions under way say of each project they convert (by project id). */
  async activity(accountId: string): Promise<Map<string, ProjectActivity>> {
    const jobs = await this.deps.jobs.active(studioConvertJob.name, accountId, '"projectId":');
    const out = new Map<string, ProjectActivity>();
    if (jobs.length === 0) return out;
    const rows = await this.deps.db
      .selectFrom('synthesis_jobs')
      .select(['id', 'request'])
      .where(
        'id',
        'in',
        jobs.map((j) => j.id),
      )
      .execute();
    const requests = new Map(rows.map((r) => [r.id, r.request]));
    for (const job of jobs) {
      const payload = scopeOf(requests.get(job.id));
      // A part's progress is in its group's (which covers the whole project).
      if (!payload || payload.parentId) continue;
      const running = job.status === 'running';
      const seen = out.get(payload.projectId);
      if (!seen) {
        out.set(payload.projectId, {
          state: running ? 'converting' : 'in_queue',
          chapters: new Set([payload.chapterId]),
          progress: { ...job.progress },
        });
        continue;
      }
      if (running) seen.state = 'converting';
      seen.chapters.add(payload.chapterId);
      seen.progress.done += job.progress.done;
      seen.progress.total += job.progress.total;
    }
    return out;
  }

  /** The project's last finished conversion when it failed (null when it succeeded, or none finished). */
  async lastFailure(accountId: string, projectId: string): Promise<ConversionFailure | null> {
    const row = await this.deps.db
      .selectFrom('synthesis_jobs')
      .selectAll()
      .where('kind', '=', studioConvertJob.name)
      .where('account_id', '=', accountId)
      .where('status', 'not in', ['queued', 'running'])
      .where('request', 'like', `%"projectId":"${projectId}"%`)
      // A whole project's conversion answers for its parts (a part's failure is its group's).
      .where('request', 'not like', '%"parentId":%')
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    if (!row || row.status !== 'failed') return null;
    const job = toJob(row);
    return { jobId: job.id, error: job.error ?? new AppError('INTERNAL'), finishedAt: job.finishedAt };
  }

  /**
   * Starts converting the project (or one chapter) as a durable job. 402 INSUFFICIENT_BALANCE when the balance does
   * not cover the estimate, with nothing held; a conversion of the same scope already under way is answered as is.
   * The paragraphs it would speak pass moderation first: one refused refuses the conversion (422 CONTENT_REFUSED, no
   * job, nothing held), so it fails in the console rather than in a job nobody watches. Each paragraph is reviewed
   * again as it is spoken (its dictionaries' aliases applied): a paragraph refused then fails the job with
   * CONTENT_REFUSED, the paragraphs before it kept and charged, none after it spoken.
   */
  async start(charge: Charge, projectId: string, chapterId: string | null = null, reqId?: string): Promise<Job> {
    const [running] = await this.active(charge.accountId, projectId, chapterId);
    if (running) return running;
    const { byChapter: parts, texts } = await this.estimates(charge.accountId, projectId, chapterId);
    await this.deps.synthesis.reviewTexts(texts, { accountId: charge.accountId, route: 'studio', purpose: 'synthesis' });
    const estimate = sum(parts.values());
    if (estimate.credits > (await this.deps.credits.balance(charge.accountId))) throw new AppError('INSUFFICIENT_BALANCE');
    const payload = (chapter: string | null, parentId?: string): StudioConvertPayload => ({
      projectId,
      chapterId: chapter,
      apiKeyId: charge.apiKeyId ?? null,
      recordType: charge.recordType,
      ...(parentId ? { parentId } : {}),
    });
    const price = (e: Estimate) => ({ credits: e.credits, characters: e.characters, contentType: 'audio/wav' });
    if (chapterId !== null)
      return this.deps.jobs.createOwn(studioConvertJob, charge.accountId, payload(chapterId), price(estimate), reqId);
    // The whole project: a part per chapter with something to speak, so the chapters spread over the workers.
    return this.deps.jobs.createOwnGroup(
      studioConvertJob,
      charge.accountId,
      { payload: payload(null), price: price(estimate) },
      (parentId) => [...parts].map(([chapter, e]) => ({ payload: payload(chapter, parentId), price: price(e) })),
      reqId,
    );
  }

  /**
   * The job's handler: speaks each changed paragraph (its own hold), then records the snapshots. A whole project's
   * conversion runs its parts (a chapter each) that no worker took and waits for the others, then records the snapshots;
   * a part records none.
   */
  handler(): JobHandler<StudioConvertPayload, OwnHoldsContext, void> {
    return async (payload, context) => {
      if (payload.chapterId === null) {
        const grouped = await this.group(payload, context);
        if (grouped) return;
      }
      const charge: Charge = { accountId: context.accountId, apiKeyId: payload.apiKeyId, recordType: payload.recordType };
      // A run after a dead process closes the charges it left open (settled if its audio was stored): a part, only on
      // its own chapter's paragraphs (the other parts may run right now).
      await closePending(this.deps, payload.projectId, context.attempt > 1, payload.parentId ? payload.chapterId : null);
      const { project, chapters, paragraphs } = await this.scope(context.accountId, payload.projectId, payload.chapterId);
      const todo = paragraphs.filter(changed);
      let done = 0;
      let made = 0;
      let failed: AppError | null = null;
      context.onProgress({ done, total: todo.length });
      for (const p of todo) {
        context.signal.throwIfAborted();
        // Read again: edited, regenerated or removed since the run began.
        const fresh = await this.deps.db.selectFrom('studio_paragraphs').selectAll().where('id', '=', p.id).executeTakeFirst();
        if (fresh && changed(fresh)) {
          try {
            await speakParagraph(this.deps, project, fresh, charge, context.signal);
            made += 1;
          } catch (e) {
            // Stopped (cancelled, or a shutdown handing it back): not the paragraph's failure.
            if (context.signal.aborted) throw e;
            // A paragraph that failed is charged nothing (its hold released, or never taken) and says why; the
            // others are still spoken, unless what failed would fail them all alike.
            const error = await recordFailure(this.deps.db, fresh, e);
            failed ??= error;
            if (STOPS.has(error.code)) break;
          }
        }
        context.onProgress({ done: ++done, total: todo.length });
      }
      // A conversion that made something records what is there now; one that made nothing, nothing. A part leaves it
      // to its group.
      if (made > 0 && !payload.parentId) await recordSnapshots(this.deps.db, context.accountId, payload.projectId, chapters);
      // Partly or wholly failed: the job fails with the first paragraph's error (the paragraphs keep their own).
      if (failed) throw failed;
    };
  }

  /**
   * A whole project's conversion with parts: runs them (those no worker took) and waits for all, its progress the
   * paragraphs converted since it began, then records the snapshots. False for one recorded without parts (an
   * earlier release's, or a project with nothing changed), which its handler converts as one chapter's.
   */
  private async group(payload: StudioConvertPayload, context: OwnHoldsContext): Promise<boolean> {
    const { chapters, paragraphs } = await this.scope(context.accountId, payload.projectId, null);
    const todo = new Set(paragraphs.filter(changed).map((p) => p.id));
    // Its progress: the paragraphs this run found to speak, and how many of them have their audio now.
    const progress = async () => {
      const rows = await this.deps.db
        .selectFrom('studio_paragraphs')
        .select(['id', 'content_hash', 'converted_hash'])
        .where('project_id', '=', payload.projectId)
        .execute();
      const left = rows.filter((p) => todo.has(p.id) && changed(p)).length;
      context.onProgress({ done: todo.size - left, total: todo.size });
      return todo.size - left;
    };
    const parts = await this.deps.jobs.runParts(context.id, {
      width: Math.max(1, this.deps.partsWidth ?? 1),
      signal: context.signal,
      onRound: async () => void (await progress()),
    });
    if (parts.length === 0) return false;
    // As a conversion of one scope: what this run made is recorded, even when a part failed; a run that found nothing
    // left to speak (its parts all done before a restart) records nothing, so a run that died after recording them
    // does not record them twice.
    if ((await progress()) > 0) await recordSnapshots(this.deps.db, context.accountId, payload.projectId, chapters);
    // A part that failed fails the group with its error (its paragraphs keep their own).
    const ended = parts.find((p) => p.status !== 'succeeded');
    if (ended)
      throw ended.error ?? new AppError('INTERNAL', {}, { cause: new Error(`conversion part ${ended.id} ${ended.status}`) });
    return true;
  }

  /** Speaks one paragraph now (charged as any synthesis) and stores its audio; returns it. */
  async regenerate(charge: Charge, projectId: string, paragraphId: string, signal?: AbortSignal): Promise<ParagraphAudio> {
    const project = await this.project(charge.accountId, projectId);
    const paragraph = await this.paragraph(project.id, paragraphId);
    try {
      return await speakParagraph(this.deps, project, paragraph, charge, signal);
    } catch (e) {
      // The caller left: not the paragraph's failure. Otherwise it says why, as a conversion's would.
      if (signal?.aborted) throw e;
      throw await recordFailure(this.deps.db, paragraph, e);
    }
  }

  /** A paragraph's stored audio, played again without a charge. */
  async audio(accountId: string, projectId: string, paragraphId: string): Promise<Buffer> {
    const project = await this.project(accountId, projectId);
    return storedAudio(this.deps.storage, await this.paragraph(project.id, paragraphId));
  }

  private async paragraph(projectId: string, paragraphId: string): Promise<StudioParagraphsTable> {
    const row = await this.deps.db
      .selectFrom('studio_paragraphs')
      .selectAll()
      .where('id', '=', paragraphId)
      .where('project_id', '=', projectId)
      .executeTakeFirst();
    if (!row) throw new AppError('NOT_FOUND');
    return row;
  }
}

/** The project and chapter a conversion's stored payload names (undefined when it cannot be read). */
function scopeOf(
  request: string | null | undefined,
): { projectId: string; chapterId: string | null; parentId?: string } | undefined {
  if (!request) return undefined;
  try {
    const value = JSON.parse(request) as { projectId?: unknown; chapterId?: unknown; parentId?: unknown };
    if (typeof value.projectId !== 'string') return undefined;
    return {
      projectId: value.projectId,
      chapterId: typeof value.chapterId === 'string' ? value.chapterId : null,
      ...(typeof value.parentId === 'string' ? { parentId: value.parentId } : {}),
    };
  } catch {
    return undefined;
  }
}
