/**
 * Local servers that speak each payment provider's protocol, with keys the test generates. Each checks the request
 * signing the real provider checks, and signs its answers and notifications the way the real one does.
 */
import { createCipheriv, createSign, createVerify, generateKeyPairSync, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';

export interface FakeServer {
  url: string;
  close(): Promise<void>;
  /** Requests the fake refused, with why: a test asserts there were none. */
  refused: string[];
}

async function listen(handler: (req: http.IncomingMessage, body: string, res: http.ServerResponse) => void) {
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => handler(req, body, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function rsaPair() {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

/** Posts a notification to the app at the path of `notifyUrl` (the app's PUBLIC_URL port is not the test's). */
export async function deliver(appUrl: string, notifyUrl: string, body: string, headers: Record<string, string>) {
  const target = new URL(new URL(notifyUrl).pathname, appUrl);
  const res = await fetch(target, { method: 'POST', headers, body });
  return { status: res.status, text: await res.text(), contentType: res.headers.get('content-type') };
}

// ---------------------------------------------------------------- Stripe

interface StripeSession {
  id: string;
  object: 'checkout.session';
  url: string;
  mode: string;
  client_reference_id: string | null;
  metadata: Record<string, string>;
  amount_total: number;
  currency: string;
  payment_status: 'unpaid' | 'paid';
  status: 'open' | 'complete' | 'expired';
  success_url: string;
  expires_at: number;
  /** Set once paid: what a refund names. */
  payment_intent: string | null;
}

export interface StripeRefund {
  id: string;
  object: 'refund';
  amount: number;
  currency: string;
  payment_intent: string;
  status: 'succeeded';
  metadata: Record<string, string>;
}

/** Form-encoded Stripe parameters (`a[b][0][c]=v`) into nested objects and arrays. */
function stripeForm(body: string): Record<string, any> {
  const root: Record<string, any> = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const parts = key.replace(/\]/g, '').split('[');
    let node: any = root;
    parts.forEach((part, i) => {
      if (i === parts.length - 1) node[part] = value;
      else node = node[part] ??= /^\d+$/.test(parts[i + 1]!) ? [] : {};
    });
  }
  return root;
}

export async function fakeStripe(options: { secretKey: string; webhookSecret: string }) {
  const sessions = new Map<string, StripeSession>();
  const refused: string[] = [];
  /** Refunds by idempotency key, as Stripe keeps a request's result under its key. */
  const refunds = new Map<string, StripeRefund>();
  const outage = { refunds: 0 };
  /** While set, refund requests wait at the door until `resume`: a provider slow to answer, for as long as a test needs. */
  let pause: { arrived: () => void; open: Promise<void> } | null = null;
  const handle = (req: http.IncomingMessage, body: string, res: http.ServerResponse): void => {
    const json = (status: number, value: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${randomBytes(6).toString('hex')}` });
      res.end(JSON.stringify(value));
    };
    if (req.headers.authorization !== `Bearer ${options.secretKey}`) {
      refused.push('bad api key');
      return json(401, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided' } });
    }
    if (req.method === 'POST' && req.url === '/v1/checkout/sessions') {
      if (!req.headers['content-type']?.startsWith('application/x-www-form-urlencoded')) {
        refused.push('not form-encoded');
        return json(400, { error: { type: 'invalid_request_error', message: 'form-encoded body expected' } });
      }
      const p = stripeForm(body);
      const item = p.line_items?.[0];
      const unit = Number(item?.price_data?.unit_amount);
      if (p.mode !== 'payment' || !item || !Number.isInteger(unit) || !p.success_url || !item.price_data?.currency) {
        refused.push(`bad session params ${body}`);
        return json(400, { error: { type: 'invalid_request_error', message: 'Missing required param' } });
      }
      const expiresAt = Number(p.expires_at);
      if (expiresAt - Date.now() / 1000 < 1800) {
        refused.push('expires_at sooner than 30 minutes');
        return json(400, { error: { type: 'invalid_request_error', param: 'expires_at' } });
      }
      const id = `cs_test_${randomBytes(12).toString('hex')}`;
      const session: StripeSession = {
        id,
        object: 'checkout.session',
        url: `${server.url}/c/pay/${id}`,
        mode: 'payment',
        client_reference_id: p.client_reference_id ?? null,
        metadata: p.metadata ?? {},
        amount_total: unit * Number(item.quantity ?? 1),
        currency: item.price_data.currency,
        payment_status: 'unpaid',
        status: 'open',
        success_url: p.success_url,
        expires_at: expiresAt,
        payment_intent: null,
      };
      sessions.set(id, session);
      return json(200, session);
    }
    if (req.method === 'POST' && req.url === '/v1/refunds') {
      const key = req.headers['idempotency-key'];
      if (typeof key !== 'string' || !key) {
        refused.push('refund without an idempotency key');
        return json(400, { error: { type: 'invalid_request_error', message: 'Idempotency-Key expected' } });
      }
      if (outage.refunds > 0) {
        // The request never reached an endpoint: nothing is kept under its idempotency key.
        outage.refunds--;
        res.setHeader('stripe-should-retry', 'false');
        return json(503, { error: { type: 'api_error', message: 'Stripe is temporarily unavailable' } });
      }
      const kept = refunds.get(key);
      if (kept) {
        res.setHeader('idempotent-replayed', 'true');
        return json(200, kept);
      }
      const p = stripeForm(body);
      const session = [...sessions.values()].find((s) => s.payment_intent && s.payment_intent === p.payment_intent);
      const amount = Number(p.amount);
      if (!session)
        return json(404, { error: { type: 'invalid_request_error', code: 'resource_missing', param: 'payment_intent' } });
      const already = [...refunds.values()]
        .filter((r) => r.payment_intent === session.payment_intent)
        .reduce((a, r) => a + r.amount, 0);
      if (!Number.isInteger(amount) || amount <= 0 || amount + already > session.amount_total) {
        refused.push(`refund amount ${p.amount} of ${session.amount_total} (${already} refunded)`);
        return json(400, { error: { type: 'invalid_request_error', code: 'amount_too_large', param: 'amount' } });
      }
      const refund: StripeRefund = {
        id: `re_test_${randomBytes(12).toString('hex')}`,
        object: 'refund',
        amount,
        currency: session.currency,
        payment_intent: session.payment_intent!,
        status: 'succeeded',
        metadata: p.metadata ?? {},
      };
      refunds.set(key, refund);
      return json(200, refund);
    }
    const one = /^\/v1\/checkout\/sessions\/(cs_test_\w+)(\/expire)?$/.exec(req.url ?? '');
    const found = one ? sessions.get(one[1]!) : undefined;
    if (one && !found) return json(404, { error: { type: 'invalid_request_error', code: 'resource_missing' } });
    if (found && req.method === 'GET' && !one![2]) return json(200, found);
    if (found && req.method === 'POST' && one![2]) {
      if (found.status !== 'open') {
        return json(400, {
          error: { type: 'invalid_request_error', message: `Only Checkout Sessions with a status of open can be expired.` },
        });
      }
      found.status = 'expired';
      return json(200, found);
    }
    refused.push(`unknown route ${req.method} ${req.url}`);
    return json(404, { error: { type: 'invalid_request_error', message: 'Unrecognized request URL' } });
  };
  const server = await listen((req, body, res) => {
    const gate = pause;
    if (gate && req.method === 'POST' && req.url === '/v1/refunds') {
      gate.arrived();
      void gate.open.then(() => handle(req, body, res));
      return;
    }
    handle(req, body, res);
  });
  const stripe = new Stripe(options.secretKey);
  return {
    ...server,
    refused,
    sessions,
    refunds,
    /** The next `count` refund requests meet an outage (503, nothing kept). */
    failRefunds(count: number) {
      outage.refunds = count;
    },
    /**
     * Holds every refund request unanswered until `resume()`: `arrived` settles when the first one is in, so a test
     * acts while the provider is "slow" for exactly as long as it needs, with no timer.
     */
    pauseRefunds() {
      let arrived!: () => void;
      let resume!: () => void;
      const inside = new Promise<void>((r) => (arrived = r));
      const open = new Promise<void>((r) => (resume = r));
      pause = { arrived, open };
      return {
        arrived: inside,
        resume: () => {
          pause = null;
          resume();
        },
      };
    },
    /** The webhook Stripe would send when the session's payment succeeds: body and signed header. */
    paidEvent(sessionId: string, override: Partial<StripeSession> = {}, secret = options.webhookSecret) {
      const session = sessions.get(sessionId);
      if (!session) throw new Error(`no session ${sessionId}`);
      if (session.status === 'expired') throw new Error(`session ${sessionId} expired: it cannot be paid`);
      session.status = 'complete';
      session.payment_status = 'paid';
      session.payment_intent ??= `pi_test_${randomBytes(12).toString('hex')}`;
      const object = { ...session, ...override };
      const payload = JSON.stringify({
        id: `evt_${randomBytes(12).toString('hex')}`,
        object: 'event',
        api_version: '2025-01-01',
        created: Math.floor(Date.now() / 1000),
        type: 'checkout.session.completed',
        data: { object },
        livemode: false,
        pending_webhooks: 1,
        request: { id: null, idempotency_key: null },
      });
      const header = stripe.webhooks.generateTestHeaderString({ payload, secret });
      return { payload, headers: { 'content-type': 'application/json', 'stripe-signature': header } };
    },
  };
}

// ---------------------------------------------------------------- Alipay

function alipaySignContent(params: Record<string, string>, omit: string[]): string {
  return Object.keys(params)
    .filter((k) => !omit.includes(k) && params[k] !== '')
    .sort()
    .map((k) => `${k}=${params[k]}`)
    .join('&');
}

export interface AlipayTrade {
  closed?: boolean;
  trade_no?: string;
  /** Refunds by out_request_no, in yuan. */
  refunds?: Map<string, string>;
  out_trade_no: string;
  total_amount: string;
  subject: string;
  notify_url: string;
  return_url: string;
}

export async function fakeAlipay(options: { appId: string; appPublicPem: string; alipayPrivatePem: string }) {
  const trades = new Map<string, AlipayTrade>();
  const refused: string[] = [];
  const outage = { refunds: 0 };
  const server = await listen((req, body, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.method === 'POST' && url.pathname === '/gateway.do') {
      // An OpenAPI call: system parameters in the query, the rest in the form body, all under one signature.
      const params = { ...Object.fromEntries(url.searchParams), ...Object.fromEntries(new URLSearchParams(body)) };
      const key = `${(params.method ?? '').replaceAll('.', '_')}_response`;
      const signedAnswer = (value: Record<string, string>) => {
        const text = JSON.stringify(value);
        const sign = createSign('RSA-SHA256').update(text, 'utf8').sign(options.alipayPrivatePem, 'base64');
        res.writeHead(200, { 'content-type': 'application/json;charset=utf-8' }).end(`{"${key}":${text},"sign":"${sign}"}`);
      };
      const ok = createVerify('RSA-SHA256')
        .update(alipaySignContent(params, ['sign']), 'utf8')
        .verify(options.appPublicPem, params.sign ?? '', 'base64');
      if (!ok || params.app_id !== options.appId) {
        refused.push(`bad OpenAPI call ${JSON.stringify(params)}`);
        return signedAnswer({ code: '40002', msg: 'Invalid Arguments', sub_code: 'isv.invalid-signature', sub_msg: '验签出错' });
      }
      const biz = JSON.parse(params.biz_content ?? '{}') as Record<string, string>;
      if (params.method === 'alipay.trade.refund') {
        const paid = trades.get(biz.out_trade_no ?? '');
        if (!paid?.trade_no)
          return signedAnswer({ code: '40004', msg: 'Business Failed', sub_code: 'ACQ.TRADE_NOT_EXIST', sub_msg: '交易不存在' });
        if (outage.refunds > 0) {
          outage.refunds--;
          return signedAnswer({
            code: '20000',
            msg: 'Service Currently Unavailable',
            sub_code: 'ACQ.SYSTEM_ERROR',
            sub_msg: '系统错误',
          });
        }
        paid.refunds ??= new Map();
        const answer = (amount: string) =>
          signedAnswer({
            code: '10000',
            msg: 'Success',
            trade_no: paid.trade_no!,
            out_trade_no: paid.out_trade_no,
            buyer_logon_id: 'tes***@example.com',
            fund_change: 'Y',
            refund_fee: amount,
          });
        // The same out_request_no is the same refund: answered again, never paid twice.
        const kept = paid.refunds.get(biz.out_request_no ?? '');
        if (kept) return answer(kept);
        const fen = (v: string) => Math.round(Number(v) * 100);
        const already = [...paid.refunds.values()].reduce((a, v) => a + fen(v), 0);
        if (
          !biz.out_request_no ||
          !/^\d+\.\d{2}$/.test(biz.refund_amount ?? '') ||
          already + fen(biz.refund_amount!) > fen(paid.total_amount)
        ) {
          refused.push(`bad refund ${params.biz_content}`);
          return signedAnswer({
            code: '40004',
            msg: 'Business Failed',
            sub_code: 'ACQ.REFUND_AMT_NOT_EQUAL_TOTAL',
            sub_msg: '退款金额超限',
          });
        }
        paid.refunds.set(biz.out_request_no, biz.refund_amount!);
        return answer(biz.refund_amount!);
      }
      if (params.method === 'alipay.trade.query') {
        const trade = trades.get(biz.out_trade_no ?? '');
        if (!trade)
          return signedAnswer({ code: '40004', msg: 'Business Failed', sub_code: 'ACQ.TRADE_NOT_EXIST', sub_msg: '交易不存在' });
        // A trade is paid once its notification was made (the payer paid), closed when closed, else waiting.
        return signedAnswer({
          code: '10000',
          msg: 'Success',
          out_trade_no: trade.out_trade_no,
          ...(trade.trade_no ? { trade_no: trade.trade_no } : {}),
          trade_status: trade.trade_no ? 'TRADE_SUCCESS' : trade.closed ? 'TRADE_CLOSED' : 'WAIT_BUYER_PAY',
          total_amount: trade.total_amount,
          buyer_logon_id: 'tes***@example.com',
        });
      }
      if (params.method !== 'alipay.trade.close')
        return signedAnswer({ code: '40004', msg: 'Business Failed', sub_code: 'isv.missing-method' });
      const trade = trades.get(biz.out_trade_no ?? '');
      if (!trade)
        return signedAnswer({ code: '40004', msg: 'Business Failed', sub_code: 'ACQ.TRADE_NOT_EXIST', sub_msg: '交易不存在' });
      trade.closed = true;
      return signedAnswer({ code: '10000', msg: 'Success', out_trade_no: trade.out_trade_no, trade_no: '2025000000' });
    }
    if (req.method !== 'GET' || url.pathname !== '/gateway.do') {
      refused.push(`unknown route ${req.method} ${url.pathname}`);
      res.writeHead(404).end();
      return;
    }
    const params = Object.fromEntries(url.searchParams);
    // Alipay checks the application's RSA2 signature over every other parameter, sorted.
    const ok = createVerify('RSA-SHA256')
      .update(alipaySignContent(params, ['sign']), 'utf8')
      .verify(options.appPublicPem, params.sign ?? '', 'base64');
    if (!ok || params.app_id !== options.appId || params.sign_type !== 'RSA2' || params.method !== 'alipay.trade.page.pay') {
      refused.push(`bad page pay request ok=${ok} ${JSON.stringify(params)}`);
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<p>invalid-signature</p>');
      return;
    }
    const biz = JSON.parse(params.biz_content ?? '{}') as Record<string, string>;
    if (biz.product_code !== 'FAST_INSTANT_TRADE_PAY' || !/^\d+\.\d{2}$/.test(biz.total_amount ?? '') || !biz.out_trade_no) {
      refused.push(`bad biz_content ${params.biz_content}`);
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<p>invalid-parameter</p>');
      return;
    }
    trades.set(biz.out_trade_no, {
      out_trade_no: biz.out_trade_no,
      total_amount: biz.total_amount!,
      subject: biz.subject ?? '',
      notify_url: params.notify_url ?? '',
      return_url: params.return_url ?? '',
    });
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<p>cashier</p>');
  });
  return {
    ...server,
    refused,
    trades,
    /** The next `count` refund calls meet ACQ.SYSTEM_ERROR (Alipay's advice: ask again with the same out_request_no). */
    failRefunds(count: number) {
      outage.refunds = count;
    },
    /** The asynchronous notification Alipay posts when the trade is paid: form body, signed without sign and sign_type. */
    paidNotification(outTradeNo: string, override: Record<string, string> = {}, signWith = options.alipayPrivatePem) {
      const trade = trades.get(outTradeNo);
      if (!trade) throw new Error(`no trade ${outTradeNo}`);
      if (trade.closed) throw new Error(`trade ${outTradeNo} is closed: it cannot be paid`);
      const now = new Date(Date.now() + 8 * 3_600_000).toISOString().replace('T', ' ').slice(0, 19);
      trade.trade_no ??= `2025${randomBytes(10).toString('hex')}`;
      const params: Record<string, string> = {
        gmt_create: now,
        charset: 'utf-8',
        gmt_payment: now,
        notify_time: now,
        subject: trade.subject,
        buyer_id: '2088102177846880',
        invoice_amount: trade.total_amount,
        version: '1.0',
        notify_id: randomBytes(16).toString('hex'),
        fund_bill_list: JSON.stringify([{ amount: trade.total_amount, fundChannel: 'ALIPAYACCOUNT' }]),
        notify_type: 'trade_status_sync',
        out_trade_no: trade.out_trade_no,
        total_amount: trade.total_amount,
        trade_status: 'TRADE_SUCCESS',
        trade_no: trade.trade_no,
        auth_app_id: options.appId,
        receipt_amount: trade.total_amount,
        point_amount: '0.00',
        app_id: options.appId,
        buyer_pay_amount: trade.total_amount,
        seller_id: '2088102176052730',
        ...override,
      };
      params.sign = createSign('RSA-SHA256')
        .update(alipaySignContent(params, ['sign', 'sign_type']), 'utf8')
        .sign(signWith, 'base64');
      params.sign_type = 'RSA2';
      return {
        body: new URLSearchParams(params).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
        notifyUrl: trade.notify_url,
      };
    },
  };
}

// ---------------------------------------------------------------- WeChat Pay

export interface WechatRefund {
  refund_id: string;
  out_refund_no: string;
  out_trade_no: string;
  transaction_id: string;
  channel: 'ORIGINAL';
  status: 'SUCCESS';
  amount: { refund: number; total: number; currency: string; payer_refund: number; payer_total: number };
  create_time: string;
}

export interface WechatOrder {
  closed?: boolean;
  /** Set once the payer paid (a notification made, or `pay`); the query answers SUCCESS from then on. */
  transaction_id?: string;
  out_trade_no: string;
  total: number;
  currency: string;
  notify_url: string;
  code_url: string;
}

function wechatSignature(privatePem: string, timestamp: string, nonce: string, body: string) {
  return createSign('RSA-SHA256').update(`${timestamp}\n${nonce}\n${body}\n`).sign(privatePem, 'base64');
}

export async function fakeWechat(options: {
  mchId: string;
  appId: string;
  serialNo: string;
  apiV3Key: string;
  merchantPublicPem: string;
  platformPrivatePem: string;
  platformSerial: string;
}) {
  const orders = new Map<string, WechatOrder>();
  const refused: string[] = [];
  /** Refunds by out_refund_no. */
  const refunds = new Map<string, WechatRefund>();
  const outage = { refunds: 0 };
  /** Query calls answered, by out_trade_no. */
  const queries: string[] = [];
  const signedHeaders = (
    body: string,
    signWith = options.platformPrivatePem,
    timestamp = String(Math.floor(Date.now() / 1000)),
  ) => {
    const nonce = randomBytes(16).toString('hex');
    return {
      'wechatpay-timestamp': timestamp,
      'wechatpay-nonce': nonce,
      'wechatpay-signature': wechatSignature(signWith, timestamp, nonce, body),
      'wechatpay-serial': options.platformSerial,
    };
  };
  const server = await listen((req, body, res) => {
    const answer = (status: number, value: unknown) => {
      const text = JSON.stringify(value);
      res.writeHead(status, {
        'content-type': 'application/json',
        'request-id': randomBytes(8).toString('hex'),
        ...signedHeaders(text),
      });
      res.end(text);
    };
    // WECHATPAY2-SHA256-RSA2048 mchid="…",nonce_str="…",timestamp="…",serial_no="…",signature="…"
    const auth = req.headers.authorization ?? '';
    const fields = Object.fromEntries([...auth.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    const message = `${req.method}\n${req.url}\n${fields.timestamp}\n${fields.nonce_str}\n${body}\n`;
    const signed =
      auth.startsWith('WECHATPAY2-SHA256-RSA2048 ') &&
      fields.mchid === options.mchId &&
      fields.serial_no === options.serialNo &&
      createVerify('RSA-SHA256')
        .update(message)
        .verify(options.merchantPublicPem, fields.signature ?? '', 'base64');
    if (!signed) {
      refused.push(`bad signature ${auth}`);
      return answer(401, { code: 'SIGN_ERROR', message: '签名错误' });
    }
    if (req.method === 'POST' && req.url === '/v3/pay/transactions/native') {
      const p = JSON.parse(body) as any;
      if (
        p.mchid !== options.mchId ||
        p.appid !== options.appId ||
        !Number.isInteger(p.amount?.total) ||
        !p.notify_url ||
        !p.out_trade_no
      ) {
        refused.push(`bad native order ${body}`);
        return answer(400, { code: 'PARAM_ERROR', message: '参数错误' });
      }
      const code_url = `weixin://wxpay/bizpayurl?pr=${randomBytes(6).toString('hex')}`;
      orders.set(p.out_trade_no, {
        out_trade_no: p.out_trade_no,
        total: p.amount.total,
        currency: p.amount.currency ?? 'CNY',
        notify_url: p.notify_url,
        code_url,
      });
      return answer(200, { code_url });
    }
    // The merchant's order query: GET /v3/pay/transactions/out-trade-no/{out_trade_no}?mchid=…
    const query = /^\/v3\/pay\/transactions\/out-trade-no\/([\w-]+)\?mchid=(\w+)$/.exec(req.url ?? '');
    if (req.method === 'GET' && query) {
      if (query[2] !== options.mchId || body !== '') return answer(400, { code: 'PARAM_ERROR', message: '参数错误' });
      queries.push(query[1]!);
      const order = orders.get(query[1]!);
      if (!order) return answer(404, { code: 'ORDER_NOT_EXIST', message: '订单不存在' });
      const refunded = [...refunds.values()].some((r) => r.out_trade_no === order.out_trade_no);
      const state = order.transaction_id ? (refunded ? 'REFUND' : 'SUCCESS') : order.closed ? 'CLOSED' : 'NOTPAY';
      return answer(200, {
        appid: options.appId,
        mchid: options.mchId,
        out_trade_no: order.out_trade_no,
        trade_state: state,
        trade_state_desc: { SUCCESS: '支付成功', REFUND: '转入退款', CLOSED: '已关闭', NOTPAY: '未支付' }[state],
        ...(order.transaction_id
          ? {
              transaction_id: order.transaction_id,
              trade_type: 'NATIVE',
              bank_type: 'OTHERS',
              success_time: new Date().toISOString(),
              payer: { openid: 'oUpF8uMuAJO_M2pxb1Q9zNjWeS6o' },
              amount: { total: order.total, payer_total: order.total, currency: order.currency, payer_currency: 'CNY' },
            }
          : { amount: { total: order.total, currency: order.currency } }),
      });
    }
    const close = /^\/v3\/pay\/transactions\/out-trade-no\/([\w-]+)\/close$/.exec(req.url ?? '');
    if (req.method === 'POST' && close) {
      const order = orders.get(close[1]!);
      if ((JSON.parse(body) as { mchid?: string }).mchid !== options.mchId)
        return answer(400, { code: 'PARAM_ERROR', message: '参数错误' });
      if (!order) return answer(404, { code: 'ORDER_NOT_EXIST', message: '订单不存在' });
      order.closed = true;
      res.writeHead(204, { 'request-id': randomBytes(8).toString('hex'), ...signedHeaders('') }).end();
      return;
    }
    if (req.method === 'POST' && req.url === '/v3/refund/domestic/refunds') {
      const p = JSON.parse(body) as any;
      if (outage.refunds > 0) {
        outage.refunds--;
        return answer(500, { code: 'SYSTEM_ERROR', message: '系统错误，请使用相同参数稍后重新调用' });
      }
      // The same out_refund_no is the same refund: answered again, never paid twice.
      const kept = refunds.get(p.out_refund_no);
      if (kept) return answer(200, kept);
      const order = orders.get(p.out_trade_no);
      if (!order?.transaction_id) return answer(404, { code: 'RESOURCE_NOT_EXISTS', message: '订单不存在' });
      const already = [...refunds.values()]
        .filter((r) => r.out_trade_no === order.out_trade_no)
        .reduce((a, r) => a + r.amount.refund, 0);
      if (
        !p.out_refund_no ||
        !Number.isInteger(p.amount?.refund) ||
        p.amount.refund <= 0 ||
        p.amount.total !== order.total ||
        p.amount.currency !== 'CNY' ||
        already + p.amount.refund > order.total
      ) {
        refused.push(`bad refund ${body}`);
        return answer(400, { code: 'PARAM_ERROR', message: '参数错误' });
      }
      const refund: WechatRefund = {
        refund_id: `5030${randomBytes(12).toString('hex')}`,
        out_refund_no: p.out_refund_no,
        out_trade_no: order.out_trade_no,
        transaction_id: order.transaction_id,
        channel: 'ORIGINAL',
        status: 'SUCCESS',
        amount: {
          refund: p.amount.refund,
          total: order.total,
          currency: 'CNY',
          payer_refund: p.amount.refund,
          payer_total: order.total,
        },
        create_time: new Date().toISOString(),
      };
      refunds.set(p.out_refund_no, refund);
      return answer(200, refund);
    }
    refused.push(`unknown route ${req.method} ${req.url}`);
    return answer(404, { code: 'NOT_FOUND', message: '无此接口' });
  });
  return {
    ...server,
    refused,
    orders,
    refunds,
    queries,
    signedHeaders,
    /** The payer pays: the order is paid at WeChat Pay (its notification is not sent). */
    pay(outTradeNo: string) {
      const order = orders.get(outTradeNo);
      if (!order) throw new Error(`no order ${outTradeNo}`);
      order.transaction_id ??= `4200${randomBytes(12).toString('hex')}`;
      return order.transaction_id;
    },
    /** The next `count` refund calls meet SYSTEM_ERROR (500; WeChat Pay's advice: ask again with the same out_refund_no). */
    failRefunds(count: number) {
      outage.refunds = count;
    },
    /** The TRANSACTION.SUCCESS notification WeChat Pay posts: resource encrypted with AES-256-GCM, body signed. */
    paidNotification(
      outTradeNo: string,
      override: { total?: number; currency?: string; mchid?: string } = {},
      options2: { key?: string; signWith?: string; timestamp?: string } = {},
    ) {
      const order = orders.get(outTradeNo);
      if (!order) throw new Error(`no order ${outTradeNo}`);
      if (order.closed) throw new Error(`order ${outTradeNo} is closed: it cannot be paid`);
      order.transaction_id ??= `4200${randomBytes(12).toString('hex')}`;
      const plain = JSON.stringify({
        mchid: override.mchid ?? options.mchId,
        appid: options.appId,
        out_trade_no: order.out_trade_no,
        transaction_id: order.transaction_id,
        trade_type: 'NATIVE',
        trade_state: 'SUCCESS',
        trade_state_desc: '支付成功',
        bank_type: 'OTHERS',
        success_time: new Date().toISOString(),
        payer: { openid: 'oUpF8uMuAJO_M2pxb1Q9zNjWeS6o' },
        amount: {
          total: override.total ?? order.total,
          payer_total: order.total,
          currency: override.currency ?? order.currency,
          payer_currency: 'CNY',
        },
      });
      const nonce = randomBytes(6).toString('hex');
      const associated = 'transaction';
      const cipher = createCipheriv('aes-256-gcm', Buffer.from(options2.key ?? options.apiV3Key), Buffer.from(nonce));
      cipher.setAAD(Buffer.from(associated));
      const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()]).toString('base64');
      const body = JSON.stringify({
        id: randomBytes(16).toString('hex'),
        create_time: new Date().toISOString(),
        resource_type: 'encrypt-resource',
        event_type: 'TRANSACTION.SUCCESS',
        summary: '支付成功',
        resource: { original_type: 'transaction', algorithm: 'AEAD_AES_256_GCM', ciphertext, associated_data: associated, nonce },
      });
      return {
        body,
        headers: { 'content-type': 'application/json', ...signedHeaders(body, options2.signWith, options2.timestamp) },
        notifyUrl: order.notify_url,
      };
    },
  };
}
