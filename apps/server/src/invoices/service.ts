import type { Kysely, Selectable } from 'kysely';
import type { Invoice, InvoiceStatus, InvoiceType, MessageLocale } from '@polyvox/contracts';
import { AppError } from '../platform/errors.js';
import { newId, randomToken } from '../platform/ids.js';
import type { Database, InvoiceRequestsTable } from '../platform/db/schema.js';
import type { Mailer } from '../platform/mail.js';
import type { Storage } from '../platform/storage.js';
import type { OrderRow, OrdersService } from '../orders/service.js';
import type { ReceiptFonts } from './fonts.js';
import { invoiceMail } from './mails.js';
import { renderReceipt, type ReceiptIssuer } from './receipt.js';

export type InvoiceRow = Selectable<InvoiceRequestsTable>;

/** An issued invoice file: a PDF, at most this large. */
export const INVOICE_FILE_MAX_BYTES = 10 * 1024 * 1024;

export interface InvoicesOptions {
  db: Kysely<Database>;
  storage: Storage;
  mailer: Mailer;
  orders: Pick<OrdersService, 'find' | 'get' | 'products'>;
  fonts: ReceiptFonts;
  issuer: ReceiptIssuer;
  /** The console's address, for the links in the mails. */
  publicUrl: string;
  /** A mail that could not be sent is logged, never fails the step it reports. */
  onMailError?: (error: unknown) => void;
}

export function invoiceView(row: InvoiceRow, fileUrl: string | null): Invoice {
  return {
    id: row.id,
    order_id: row.order_id,
    type: row.type as InvoiceType,
    title: row.title,
    tax_number: row.tax_number,
    email: row.email,
    status: row.status as InvoiceStatus,
    invoice_number: row.invoice_number,
    note: row.note,
    created_at: row.created_at,
    handled_at: row.handled_at,
    file_url: row.status === 'issued' && row.file_key ? fileUrl : null,
  };
}

/** Receipts of paid orders, and 发票 requests from the user's request to finance's file. */
export class InvoicesService {
  private readonly db: Kysely<Database>;
  private readonly o: InvoicesOptions;

  constructor(options: InvoicesOptions) {
    this.db = options.db;
    this.o = options;
  }

  /** The caller's paid order; NOT_FOUND for another account's, a missing one, or one never paid. */
  private async paidOrder(orderId: string, accountId: string): Promise<OrderRow> {
    const order = await this.o.orders.get(orderId, accountId);
    if (order.status !== 'successful' || !order.paid_at) throw new AppError('NOT_FOUND');
    return order;
  }

  /** The receipt PDF of a paid order, in `locale` (English when no font with Chinese glyphs is installed). */
  async receipt(orderId: string, accountId: string, locale: MessageLocale): Promise<{ pdf: Uint8Array; locale: MessageLocale }> {
    const order = await this.paidOrder(orderId, accountId);
    const [payment, account] = await Promise.all([
      this.db
        .selectFrom('payments')
        .select(['amount', 'currency', 'method'])
        .where('order_id', '=', order.id)
        .where('status', '=', 'paid')
        .executeTakeFirst(),
      this.db.selectFrom('accounts').select('email').where('id', '=', order.account_id).executeTakeFirst(),
    ]);
    const product = (await this.o.orders.products.current()).get(order.product_id);
    return renderReceipt(
      {
        orderId: order.id,
        productName: product ? { ...product.name } : { en: order.product_id },
        credits: Number(order.credits),
        amount: payment ? Number(payment.amount) : Number(order.amount),
        currency: payment?.currency ?? order.currency,
        method: payment?.method ?? order.method,
        paidAt: order.paid_at!,
        accountEmail: account?.email ?? null,
        refund:
          order.refunded_at && order.refund_amount !== null
            ? { at: order.refunded_at, amount: Number(order.refund_amount), currency: order.refund_currency ?? order.currency }
            : null,
        issuer: this.o.issuer,
      },
      locale,
      this.o.fonts,
    );
  }

  private link(): string {
    return `${this.o.publicUrl.replace(/\/+$/, '')}/#/app/orders`;
  }

  private async mail(row: InvoiceRow, step: 'requested' | 'issued' | 'rejected'): Promise<void> {
    try {
      const message = invoiceMail(step, row.locale, {
        orderId: row.order_id,
        title: row.title,
        type: row.type as InvoiceType,
        reason: row.note,
        link: this.link(),
      });
      await this.o.mailer.send({ to: row.email, ...message });
    } catch (e) {
      this.o.onMailError?.(e);
    }
  }

  /**
   * Requests a 发票 on a paid order, or corrects a request not issued yet (a rejected one is requested again). One
   * request per order; an order already invoiced, or refunded, is refused.
   */
  async request(
    accountId: string,
    orderId: string,
    body: { type: InvoiceType; title: string; tax_number?: string | undefined; email: string },
    locale: MessageLocale,
  ): Promise<{ row: InvoiceRow; created: boolean }> {
    const order = await this.paidOrder(orderId, accountId);
    if (order.refunded_at) throw new AppError('VALIDATION_FAILED', { field: 'order', rule: 'a refunded order is not invoiced' });
    if (body.type === 'special' && !body.tax_number)
      throw new AppError('VALIDATION_FAILED', { field: 'tax_number', rule: 'required for a special invoice (专用发票)' });
    const now = new Date().toISOString();
    const fields = {
      type: body.type,
      title: body.title,
      tax_number: body.tax_number ?? null,
      email: body.email,
      locale,
      status: 'requested',
      note: null,
      handled_by: null,
      handled_at: null,
      updated_at: now,
    };
    const inserted = await this.db
      .insertInto('invoice_requests')
      .values({
        id: newId('invoice'),
        order_id: order.id,
        account_id: accountId,
        file_key: null,
        invoice_number: null,
        created_at: now,
        ...fields,
      })
      .onConflict((oc) => oc.column('order_id').doNothing())
      .returningAll()
      .executeTakeFirst();
    let row = inserted;
    if (!row) {
      // A request exists: corrected while it waits, or asked again after a rejection; never once issued.
      row = await this.db
        .updateTable('invoice_requests')
        .set(fields)
        .where('order_id', '=', order.id)
        .where('status', 'in', ['requested', 'rejected'])
        .returningAll()
        .executeTakeFirst();
      if (!row) throw new AppError('VALIDATION_FAILED', { field: 'order', rule: 'an invoice was already issued for this order' });
    }
    await this.mail(row, 'requested');
    return { row, created: inserted !== undefined };
  }

  /** The caller's request on one of their orders; NOT_FOUND when there is none. */
  async forOrder(accountId: string, orderId: string): Promise<InvoiceRow> {
    const row = await this.db
      .selectFrom('invoice_requests')
      .selectAll()
      .where('order_id', '=', orderId)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    if (!row) throw new AppError('NOT_FOUND');
    return row;
  }

  /** The issued file of the caller's invoice. */
  async fileForOrder(accountId: string, orderId: string): Promise<Buffer> {
    return this.fileOf(await this.forOrder(accountId, orderId));
  }

  private async fileOf(row: InvoiceRow): Promise<Buffer> {
    const bytes = row.status === 'issued' && row.file_key ? await this.o.storage.get(row.file_key) : null;
    if (!bytes) throw new AppError('NOT_FOUND');
    return bytes;
  }

  /** Each order's request status, for the order list. */
  async statusOf(orderIds: string[]): Promise<Map<string, InvoiceStatus>> {
    if (!orderIds.length) return new Map();
    const rows = await this.db
      .selectFrom('invoice_requests')
      .select(['order_id', 'status'])
      .where('order_id', 'in', orderIds)
      .execute();
    return new Map(rows.map((r) => [r.order_id, r.status as InvoiceStatus]));
  }

  // ------------------------------------------------------------------ finance (operator routes)

  async list(status: InvoiceStatus | undefined, page: number, pageSize: number) {
    let q = this.db
      .selectFrom('invoice_requests as i')
      .innerJoin('orders as o', 'o.id', 'i.order_id')
      .leftJoin('accounts as a', 'a.id', 'i.account_id');
    if (status) q = q.where('i.status', '=', status);
    const [items, count] = await Promise.all([
      q
        .selectAll('i')
        .select([
          'a.email as account_email',
          'o.amount as order_amount',
          'o.currency as order_currency',
          'o.product_id as order_product',
        ])
        .orderBy('i.created_at', status === 'requested' ? 'asc' : 'desc')
        .orderBy('i.id')
        .offset((page - 1) * pageSize)
        .limit(pageSize)
        .execute(),
      q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { items, total: Number(count.n) };
  }

  async find(id: string): Promise<InvoiceRow> {
    const row = await this.db.selectFrom('invoice_requests').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) throw new AppError('NOT_FOUND');
    return row;
  }

  async findByOrder(orderId: string): Promise<InvoiceRow | null> {
    return (await this.db.selectFrom('invoice_requests').selectAll().where('order_id', '=', orderId).executeTakeFirst()) ?? null;
  }

  /** An order's request as the operator console shows it (its file under the operator route). */
  async viewByOrder(orderId: string): Promise<Invoice | null> {
    const row = await this.findByOrder(orderId);
    return row ? invoiceView(row, `/admin/api/invoices/${encodeURIComponent(row.id)}/file`) : null;
  }

  async adminFile(id: string): Promise<Buffer> {
    return this.fileOf(await this.find(id));
  }

  /**
   * Finance issued the invoice: the file is stored, the request marked issued (a conditional update: a request
   * rejected meanwhile is not issued), the user mailed. Issuing again replaces the file.
   */
  async issue(
    id: string,
    operatorId: string,
    file: Buffer,
    invoiceNumber: string | null,
  ): Promise<{ before: InvoiceRow; after: InvoiceRow }> {
    const before = await this.find(id);
    if (file.length === 0 || file.length > INVOICE_FILE_MAX_BYTES) throw new AppError('FILE_TOO_LARGE');
    if (file.subarray(0, 5).toString('latin1') !== '%PDF-') throw new AppError('UNSUPPORTED_FILE_TYPE');
    if (before.status === 'rejected')
      throw new AppError('VALIDATION_FAILED', { field: 'status', rule: 'a rejected request is not issued' });
    const key = `invoices/${before.id}-${randomToken(8)}.pdf`;
    await this.o.storage.put(key, file, { contentType: 'application/pdf', size: file.length });
    const now = new Date().toISOString();
    const after = await this.db
      .updateTable('invoice_requests')
      .set({
        status: 'issued',
        file_key: key,
        invoice_number: invoiceNumber,
        note: null,
        handled_by: operatorId,
        handled_at: now,
        updated_at: now,
      })
      .where('id', '=', id)
      .where('status', 'in', ['requested', 'issued'])
      .returningAll()
      .executeTakeFirst();
    if (!after) {
      await this.o.storage.delete(key);
      throw new AppError('VALIDATION_FAILED', { field: 'status', rule: 'a rejected request is not issued' });
    }
    if (before.file_key && before.file_key !== key) await this.o.storage.delete(before.file_key).catch(() => undefined);
    await this.mail(after, 'issued');
    return { before, after };
  }

  /** Finance cannot issue what was asked (a wrong tax number …): the user is told why and may ask again. */
  async reject(id: string, operatorId: string, reason: string): Promise<{ before: InvoiceRow; after: InvoiceRow }> {
    const before = await this.find(id);
    const now = new Date().toISOString();
    const after = await this.db
      .updateTable('invoice_requests')
      .set({ status: 'rejected', note: reason, handled_by: operatorId, handled_at: now, updated_at: now })
      .where('id', '=', id)
      .where('status', '=', 'requested')
      .returningAll()
      .executeTakeFirst();
    if (!after)
      throw new AppError('VALIDATION_FAILED', { field: 'status', rule: 'only a request waiting to be issued is rejected' });
    await this.mail(after, 'rejected');
    return { before, after };
  }
}
