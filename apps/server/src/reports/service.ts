import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { AdminReport, ReportFields, ReportStatus } from '@polyvox/contracts';
import type { AuditTrail } from '../audit/trail.js';
import { nowIso } from '../platform/db/database.js';
import type { Database, MisuseReportsTable, OwnVoicesTable } from '../platform/db/schema.js';
import { AppError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import type { Mailer } from '../platform/mail.js';
import type { Storage } from '../platform/storage.js';
import type { Verification } from '../provenance/verify.js';
import type { OperatorAct, ProtectedVoices } from '../protected-voices/service.js';
import { mixTakedownMail, outcomeMail, takedownMail } from './mails.js';
import { sampleVoiceprint, takeDownVoice, type TakenDown } from './takedown.js';

/** Disables an account (the console's own disable, `account-admin/`), its audit entry carrying `after` as well. */
export type AccountDisabler = (act: OperatorAct, accountId: string, reason: string, after: object) => Promise<unknown>;

export interface ReportsOptions {
  db: Kysely<Database>;
  storage: Storage;
  mailer: Mailer;
  audit: AuditTrail;
  protectedVoices: ProtectedVoices;
  disableAccount: AccountDisabler;
  /** Whether an official library voice has this id. */
  officialVoice: (id: string) => Promise<boolean>;
  /** Told after an official voice was taken down (the library forgets its copy of the withheld voices). */
  officialTakenDown?: () => void;
  /** A decoded sample's voiceprint from its stored measures (or a file of any length), empty when it says nothing. */
  voiceprintOf: (file: string) => Promise<number[]>;
}

export interface NewReport {
  fields: ReportFields;
  ip: string;
  locale: string;
  /** The reported audio in a temp file, with the provenance check already run on it. */
  file?: { path: string; bytes: Buffer; format: string; check: Verification } | undefined;
}

const REPORT_FOLDER = 'reports';
type Outcome = { action: string; note: string | null };

/**
 * Reports of misuse: anyone files one (the audio or a link to it, or a voice); it waits in the operator's queue, where
 * it is reviewed, rejected, or acted on (the voice taken down everywhere, the account disabled, the voice protected).
 * Every step writes one audit entry in the step's transaction; the reporter hears the outcome by mail when they agreed.
 */
export class ReportsService {
  constructor(private readonly o: ReportsOptions) {}

  async create(input: NewReport): Promise<{ id: string }> {
    const { fields } = input;
    if (!input.file && !fields.voice_id) throw new AppError('PARAMETERS_NEEDED', { field: 'file' });
    let voice: OwnVoicesTable | undefined;
    if (fields.voice_id) {
      voice = await this.o.db.selectFrom('own_voices').selectAll().where('id', '=', fields.voice_id).executeTakeFirst();
      if (!voice && !(await this.o.officialVoice(fields.voice_id))) throw new AppError('NOT_FOUND');
    }
    const id = newId('report');
    let fileKey: string | null = null;
    let sha: string | null = null;
    let print: number[] = [];
    let provenance: AdminReport['provenance'] = null;
    let accountId = voice?.account_id ?? null;
    if (input.file) {
      const { check } = input.file;
      provenance = {
        ai_generated: check.ai_generated,
        watermark: check.watermark.detected,
        aigc_valid: check.aigc_valid,
        c2pa_valid: check.c2pa?.valid ?? false,
        records: check.candidates.slice(0, 10).map((r) => ({
          produce_id: r.produce_id,
          account_id: r.account_id,
          voice_id: r.voice_id,
          request_id: r.request_id,
          api_key_id: r.api_key_id,
          created_at: r.created_at,
        })),
      };
      accountId ??= provenance.records[0]?.account_id ?? null;
      if (!voice && provenance.records[0]) {
        voice = await this.o.db
          .selectFrom('own_voices')
          .selectAll()
          .where('id', '=', provenance.records[0].voice_id)
          .executeTakeFirst();
      }
      sha = createHash('sha256').update(input.file.bytes).digest('hex');
      // What the operator may protect later: a voiceprint of the reported voice (nothing when it holds too little speech).
      print = await this.o.voiceprintOf(input.file.path).catch(() => []);
      fileKey = `${REPORT_FOLDER}/${id}.${input.file.format}`;
      await this.o.storage.put(fileKey, input.file.bytes, { contentType: 'application/octet-stream' });
    }
    const now = nowIso();
    await this.o.db
      .insertInto('misuse_reports')
      .values({
        id,
        status: 'new',
        reason: fields.reason,
        details: fields.details || null,
        contact: fields.contact,
        consent: fields.consent ? 1 : 0,
        locale: input.locale,
        voice_id: voice?.id ?? fields.voice_id ?? null,
        url: fields.url ?? null,
        file_key: fileKey,
        file_sha256: sha,
        file_voiceprint: print.length ? JSON.stringify(print) : null,
        provenance: provenance ? JSON.stringify(provenance) : null,
        account_id: accountId,
        ip: input.ip,
        outcome: null,
        handled_by: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    return { id };
  }

  private async row(id: string, db: Kysely<Database> = this.o.db): Promise<MisuseReportsTable> {
    const row = await db.selectFrom('misuse_reports').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) throw new AppError('NOT_FOUND');
    return row;
  }

  private async view(row: MisuseReportsTable): Promise<AdminReport> {
    const voice = row.voice_id
      ? await this.o.db.selectFrom('own_voices').selectAll().where('id', '=', row.voice_id).executeTakeFirst()
      : undefined;
    return {
      id: row.id,
      status: row.status as ReportStatus,
      reason: row.reason as AdminReport['reason'],
      details: row.details,
      contact: row.contact,
      consent: row.consent === 1,
      locale: row.locale,
      voice_id: row.voice_id,
      url: row.url,
      has_file: row.file_key !== null,
      provenance: row.provenance ? (JSON.parse(row.provenance) as AdminReport['provenance']) : null,
      account_id: row.account_id,
      voice: voice
        ? {
            id: voice.id,
            name: voice.name,
            type: voice.type,
            account_id: voice.account_id,
            taken_down: voice.taken_down_at !== null && voice.taken_down_at !== undefined,
          }
        : null,
      outcome: row.outcome ? (JSON.parse(row.outcome) as Outcome) : null,
      handled_by: row.handled_by,
      created_at: row.created_at,
      updated_at: row.updated_at,
    };
  }

  async list(status: ReportStatus | undefined, page: number, pageSize: number) {
    let q = this.o.db.selectFrom('misuse_reports');
    if (status) q = q.where('status', '=', status);
    const [rows, count] = await Promise.all([
      q
        .selectAll()
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(pageSize)
        .offset((page - 1) * pageSize)
        .execute(),
      q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { items: await Promise.all(rows.map((r) => this.view(r))), total: Number(count.n), page, page_size: pageSize };
  }

  async get(id: string): Promise<AdminReport> {
    return this.view(await this.row(id));
  }

  /** The reported audio as it was sent, for the operator. */
  async audio(id: string): Promise<Buffer> {
    const row = await this.row(id);
    const data = row.file_key ? await this.o.storage.get(row.file_key) : null;
    if (!data) throw new AppError('NOT_FOUND');
    return data;
  }

  /** Moves the report to `status` (the step's audit entry written by `audit`, in the same transaction). */
  private async step(
    act: OperatorAct,
    id: string,
    status: ReportStatus,
    outcome: Outcome,
    work: (trx: Kysely<Database>, row: MisuseReportsTable) => Promise<void>,
  ): Promise<AdminReport> {
    const row = await this.o.db.transaction().execute(async (trx) => {
      const row = await this.row(id, trx);
      await trx
        .updateTable('misuse_reports')
        .set({ status, outcome: JSON.stringify(outcome), handled_by: act.operator.accountId, updated_at: nowIso() })
        .where('id', '=', id)
        .execute();
      await work(trx, row);
      return row;
    });
    if ((status === 'actioned' || status === 'rejected') && row.consent === 1)
      await this.o.mailer.send({ to: row.contact, ...outcomeMail(row.id, status, row.locale) }).catch(() => {});
    return this.get(id);
  }

  review(act: OperatorAct, id: string, reason: string) {
    return this.step(act, id, 'in_review', { action: 'review', note: reason }, (trx, row) =>
      this.o.audit.record(
        {
          ...act,
          action: 'report.review',
          target: { type: 'report', id },
          before: { status: row.status },
          after: { status: 'in_review' },
          reason,
        },
        trx,
      ),
    );
  }

  reject(act: OperatorAct, id: string, reason: string) {
    return this.step(act, id, 'rejected', { action: 'reject', note: reason }, (trx, row) =>
      this.o.audit.record(
        {
          ...act,
          action: 'report.reject',
          target: { type: 'report', id },
          before: { status: row.status },
          after: { status: 'rejected' },
          reason,
        },
        trx,
      ),
    );
  }

  /**
   * Takes the reported voice down everywhere, whoever's it is (an account's designed, mixed or cloned voice, or an
   * official library voice): it and every saved mix made with it answer 404 on every route; a clone's sample joins
   * the protected voices (category `taken_down`), so it cannot be cloned again; each owner is told by mail.
   */
  async takeDown(act: OperatorAct, id: string, reason: string): Promise<AdminReport> {
    let done: TakenDown | null = null;
    const view = await this.step(act, id, 'actioned', { action: 'takedown', note: reason }, async (trx, row) => {
      if (!row.voice_id) throw new AppError('NOT_FOUND');
      const at = nowIso();
      const taken = await takeDownVoice(trx, row.voice_id, this.o.officialVoice, {
        operatorId: act.operator.accountId,
        reportId: id,
        at,
      });
      let protectedId: string | null = null;
      const print = await sampleVoiceprint(trx, taken.own);
      if (taken.own && print.length) {
        protectedId = newId('protectedVoice');
        await trx
          .insertInto('protected_voices')
          .values({
            id: protectedId,
            name: taken.own.name,
            category: 'taken_down',
            voiceprint: JSON.stringify(print),
            storage_key: null,
            source_voice_id: taken.own.id,
            report_id: id,
            created_by: act.operator.accountId,
            created_at: at,
          })
          .execute();
      }
      await this.o.audit.record(
        {
          ...act,
          action: 'voice.takedown',
          target: { type: 'voice', id: row.voice_id },
          before: { taken_down: taken.own ? taken.own.taken_down_at != null : false },
          after: {
            taken_down: true,
            report_id: id,
            official: taken.own === null,
            voices: [row.voice_id, ...taken.mixes.map((m) => m.id)],
            protected_voice_id: protectedId,
          },
          reason,
        },
        trx,
      );
      done = taken;
    });
    const taken = done as TakenDown | null;
    if (taken) {
      if (!taken.own) this.o.officialTakenDown?.();
      const notices = [
        ...(taken.own ? [{ voice: taken.own, mail: takedownMail(taken.own.name, taken.own.id) }] : []),
        ...taken.mixes.map((m) => ({ voice: m, mail: mixTakedownMail(m.name, m.id) })),
      ];
      for (const { voice, mail } of notices) {
        const account = await this.o.db
          .selectFrom('accounts')
          .select('email')
          .where('id', '=', voice.account_id)
          .executeTakeFirst();
        if (account?.email) await this.o.mailer.send({ to: account.email, ...mail }).catch(() => {});
      }
    }
    return view;
  }

  /** Disables the account the report points at, through the console's own disable (its `account.disable` entry). */
  async disableAccount(act: OperatorAct, id: string, reason: string): Promise<AdminReport> {
    const row = await this.row(id);
    if (!row.account_id) throw new AppError('NOT_FOUND');
    await this.o.disableAccount(act, row.account_id, reason, { report_id: id });
    await this.o.db
      .updateTable('misuse_reports')
      .set({
        status: 'actioned',
        outcome: JSON.stringify({ action: 'disable_account', note: reason }),
        handled_by: act.operator.accountId,
        updated_at: nowIso(),
      })
      .where('id', '=', id)
      .execute();
    if (row.consent === 1)
      await this.o.mailer.send({ to: row.contact, ...outcomeMail(row.id, 'actioned', row.locale) }).catch(() => {});
    return this.get(id);
  }

  /** Adds the reported voice (its clone sample, else the reported audio) to the protected voices. */
  async protect(act: OperatorAct, id: string, name: string, reason: string): Promise<AdminReport> {
    return this.step(act, id, 'actioned', { action: 'protect', note: reason }, async (trx, row) => {
      let print: number[] = [];
      let voiceId: string | null = null;
      if (row.voice_id) {
        const voice = await trx.selectFrom('own_voices').selectAll().where('id', '=', row.voice_id).executeTakeFirst();
        print = await sampleVoiceprint(trx, voice);
        voiceId = voice?.id ?? null;
      }
      if (!print.length && row.file_voiceprint) print = JSON.parse(row.file_voiceprint) as number[];
      if (!print.length)
        throw new AppError('VALIDATION_FAILED', { field: 'report', rule: 'must hold a sample or audio with speech' });
      await this.o.protectedVoices.add(
        act,
        { name, category: 'other', voiceprint: print, storageKey: null, sourceVoiceId: voiceId, reportId: id },
        reason,
        trx,
      );
    });
  }
}
