import fs from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { ConfigError, loadConfig } from '../platform/config.js';
import { migrate, openDatabase, type Db } from '../platform/db/database.js';
import type { Config } from '../platform/config.js';
import { OPERATOR_ROLES, type OperatorRole } from '@polyvox/contracts';
import { isOperatorRole, OperatorsService, systemClock } from '../operators/service.js';
import type { AuditTrail } from '../audit/trail.js';
import { isAppError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { CreditsService } from '../credits/service.js';
import { loadCreditsConfig } from '../credits/credits-config.js';
import { OrdersService, type OrderRow } from '../orders/service.js';
import { loadProducts } from '../orders/products.js';
import { loadSecret } from '../platform/secret.js';
import { PaymentsService } from '../payments/service.js';
import { createProviders } from '../payments/providers.js';
import { RefundFailed } from '../payments/provider.js';
import { Provenance } from '../provenance/service.js';
import { provenanceKeys } from '../provenance/keys.js';
import { verifyAudio, watermarkDetector } from '../provenance/verify.js';
import { describeProvenance } from './provenance.js';
import { PronunciationService } from '../pronunciation/service.js';
import { scanModelsDir } from '@polyvox/speech';

/** Exit codes: 0 done, 1 refused (no such account or order, not refundable), 2 wrong usage or settings. */
export const EXIT = { ok: 0, refused: 1, usage: 2 } as const;

const USAGE = `Usage: npm run admin -- <command>
  grant <email> <credits>   add credits to the account of <email> (recorded in its ledger as a grant)
  refund <order id>         refund a successful order once: deducts the credits it left unused, then returns the money for them through its provider
  order <order id>          show an order
  provenance <file>         check an audio file for this server's marks and show which record made it (who, when, which voice)
  dictionary <file> <name>  share a pronunciation dictionary (a W3C PLS file) with every account, read-only to them
  operator add <email> --role <role>
                            name the account of <email> an operator: owner, admin, support or finance (the first owner is made so)
  operator list             the operators, their roles and second factors
  operator remove <email>   remove an operator (the account stays a customer; the last owner stays)
  models                    list the models found in MODELS_DIR (type, languages, voices) and the folders skipped, with the file at fault;
                            a running server picks changes up by itself within seconds`;

export interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
}

const money = (minor: number, currency: string) => `${(minor / 100).toFixed(2)} ${currency}`;
const count = (n: number) => n.toLocaleString('en-US');

interface PaymentLine {
  id: string;
  method: string;
  amount: number;
  currency: string;
  status: string;
  provider_ref: string | null;
  created_at: string;
}

function describeOrder(order: OrderRow, email: string | null, payments: PaymentLine[]): string[] {
  const lines = [
    `Order ${order.id}`,
    `  account   ${order.account_id}${email ? ` (${email})` : ''}`,
    `  product   ${order.product_id} (${order.product_kind}${order.plan ? ` ${order.plan}` : ''}), ${count(Number(order.credits))} credits`,
    `  amount    ${money(Number(order.amount), order.currency)}`,
    `  status    ${order.status}${order.method ? ` via ${order.method}` : ''}`,
    `  created   ${order.created_at}`,
  ];
  if (order.paid_at)
    lines.push(`  paid      ${order.paid_at}${order.provider_ref ? ` (provider ref ${order.provider_ref})` : ''}`);
  else lines.push(`  expires   ${order.expires_at}`);
  if (order.refunded_at) {
    lines.push(
      `  refunded  ${order.refunded_at}: ${count(Number(order.refund_credits ?? 0))} credits deducted, ${money(Number(order.refund_amount ?? 0), order.refund_currency ?? order.currency)} returned${order.refund_ref ? ` (refund ${order.refund_ref})` : ''}`,
    );
  }
  for (const p of payments) {
    const note = p.status === 'duplicate' ? '  ← paid after the order was settled by another payment: return it' : '';
    lines.push(
      `  payment   ${p.id} ${p.method} ${money(Number(p.amount), p.currency)} ${p.status}${p.provider_ref ? ` (${p.provider_ref})` : ''}${note}`,
    );
  }
  return lines;
}

/** What the server finds in MODELS_DIR: each model with its voices, and each folder skipped with the file at fault. */
function listModels(modelsDir: string, io: Io): number {
  const { models, problems } = scanModelsDir(modelsDir);
  for (const m of models) {
    const voices = m.speakers.map((s) => `${s.name}${s.gender === 'neutral' ? '' : ` (${s.gender})`}`);
    io.out(
      `${m.id}  ${m.type}  ${m.languages.join(', ')}${m.sampleRate ? `  ${m.sampleRate} Hz` : ''}  ${m.source ? `found in ${m.source}` : 'manifest.json'}`,
    );
    io.out(
      `  voices: ${voices.length > 12 ? `${voices.slice(0, 12).join(', ')} and ${voices.length - 12} more` : voices.join(', ')}`,
    );
  }
  for (const p of problems) io.err(`skipped ${p.folder}: ${p.message}`);
  if (!models.length && !problems.length) io.out(`No models in ${modelsDir}.`);
  return EXIT.ok;
}

/** The settings in `env`, or null when they are wrong (said on `io`). */
function cliConfig(env: Record<string, string | undefined>, io: Io): Config | null {
  try {
    return loadConfig(env);
  } catch (e) {
    if (e instanceof ConfigError) {
      io.err(e.message);
      return null;
    }
    throw e;
  }
}

/** Opens the database of the settings in `env` (migrated) for `use`; wrong settings are a usage error. */
async function withDatabase(
  env: Record<string, string | undefined>,
  io: Io,
  use: (db: Db, config: Config) => Promise<number>,
): Promise<number> {
  const config = cliConfig(env, io);
  if (!config) return EXIT.usage;
  const db = openDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR });
  try {
    await migrate(db);
    return await use(db, config);
  } finally {
    await db.close();
  }
}

/**
 * `operator add|list|remove`: naming operators from the shell (the first owner; the console does the rest). These
 * write no audit entry (the trail records what operators do in the console) and never touch the trail.
 */
async function runOperator(args: string[], env: Record<string, string | undefined>, io: Io): Promise<number> {
  const [sub, ...rest] = args;
  const roleAt = rest.indexOf('--role');
  const role = roleAt >= 0 ? rest[roleAt + 1] : undefined;
  const positional = roleAt >= 0 ? rest.filter((_, i) => i !== roleAt && i !== roleAt + 1) : rest;
  const valid =
    (sub === 'add' && positional.length === 1 && role !== undefined) ||
    (sub === 'list' && positional.length === 0 && roleAt < 0) ||
    (sub === 'remove' && positional.length === 1 && roleAt < 0);
  if (!valid) {
    io.err(USAGE);
    return EXIT.usage;
  }
  if (role !== undefined && !isOperatorRole(role)) {
    io.err(`The role must be one of ${OPERATOR_ROLES.join(', ')}, not "${role}".`);
    return EXIT.usage;
  }
  return withDatabase(env, io, async (db) => {
    // No audit trail is given: nothing here writes one (a null actor), and nothing here may change it.
    const operators = new OperatorsService({ db: db.kysely, audit: NO_AUDIT, clock: systemClock() });
    try {
      if (sub === 'list') {
        const list = await operators.list();
        if (!list.length) io.out('No operators. Name the first owner: npm run admin -- operator add <email> --role owner');
        for (const o of list) {
          const factors = [o.totp ? 'authenticator app' : null, o.passkeys ? `${o.passkeys} passkey(s)` : null].filter(Boolean);
          io.out(
            `${o.email ?? o.account_id}  ${o.role}  since ${o.created_at}  ${factors.length ? factors.join(', ') : 'no second factor yet'}`,
          );
        }
        return EXIT.ok;
      }
      const email = emailArg(positional);
      if (sub === 'add') {
        const made = await operators.add(email, role as OperatorRole, null);
        io.out(`${made.email} (${made.account_id}) is now an operator: ${made.role}.`);
        io.out('They sign in to the console as any user does, then set up their second factor at #/admin.');
        return EXIT.ok;
      }
      await operators.remove(await operators.idOfEmail(email), null);
      io.out(`${email} is no longer an operator.`);
      return EXIT.ok;
    } catch (e) {
      if (!isAppError(e)) throw e;
      if (e.code === 'NOT_FOUND')
        io.err(
          sub === 'remove'
            ? `${emailArg(positional)} is not an operator (or no account has that email).`
            : `No registered account has the email ${emailArg(positional)}: sign in once with it first.`,
        );
      else io.err(`Refused: ${String(e.params.rule ?? e.code)}.`);
      return EXIT.refused;
    }
  });
}
const emailArg = (positional: string[]) => positional[0]!.trim().toLowerCase();

/** The command line never writes the audit trail. */
const NO_AUDIT: AuditTrail = {
  record: () => Promise.reject(new Error('the command line writes no audit entry')),
};

/** The operator's commands, on the same settings and database as the server. */
export async function runAdmin(argv: string[], env: Record<string, string | undefined>, io: Io): Promise<number> {
  const [command, ...args] = argv;
  if (command === 'operator') return runOperator(args, env, io);
  const known = new Map([
    ['grant', 2],
    ['refund', 1],
    ['order', 1],
    ['provenance', 1],
    ['dictionary', 2],
    ['models', 0],
  ]);
  if (!command || !known.has(command) || args.length !== known.get(command)) {
    io.err(USAGE);
    return EXIT.usage;
  }
  const config = cliConfig(env, io);
  if (!config) return EXIT.usage;
  if (command === 'models') return listModels(config.MODELS_DIR, io);
  const db = openDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR });
  try {
    await migrate(db);
    const credits = new CreditsService({
      db: db.kysely,
      config: loadCreditsConfig(config.CREDITS_CONFIG),
      dialect: db.dialect,
    });
    const orders = new OrdersService({
      db: db.kysely,
      credits,
      products: loadProducts(config.PRODUCTS_CONFIG),
      ttlMinutes: config.ORDER_TTL_MINUTES,
      pendingLimit: config.ORDER_PENDING_LIMIT,
    });
    const emailOf = async (accountId: string) =>
      (await db.kysely.selectFrom('accounts').select('email').where('id', '=', accountId).executeTakeFirst())?.email ?? null;

    if (command === 'grant') {
      const email = args[0]!.trim().toLowerCase();
      const amount = Number(args[1]);
      if (!/^\d{1,12}$/.test(args[1]!) || amount <= 0) {
        io.err(`Credits must be a whole number above zero, not "${args[1]}".`);
        return EXIT.usage;
      }
      const account = await db.kysely.selectFrom('accounts').select('id').where('email', '=', email).executeTakeFirst();
      if (!account) {
        io.err(`No account has the email ${email}.`);
        return EXIT.refused;
      }
      await db.kysely
        .transaction()
        .execute((trx) => credits.grantOnce(trx, account.id, `admin:${newId('record')}`, amount, 'granted by an operator'));
      io.out(
        `Granted ${count(amount)} credits to ${email} (${account.id}). Balance: ${count(await credits.balance(account.id))}.`,
      );
      return EXIT.ok;
    }

    if (command === 'dictionary') {
      let bytes: Buffer;
      try {
        bytes = await fs.readFile(args[0]!);
      } catch (e) {
        io.err(`Cannot read ${args[0]}: ${(e as Error).message}`);
        return EXIT.usage;
      }
      try {
        const made = await new PronunciationService({ db: db.kysely }).createFromFile(null, { name: args[1]!, file: bytes });
        io.out(
          `Shared dictionary ${made.id} "${made.name}" (version ${made.version_id}, ${count(made.version_rules_num)} rules) with every account.`,
        );
        return EXIT.ok;
      } catch (e) {
        if (!isAppError(e)) throw e;
        io.err(`${args[0]} is refused: ${e.code} ${JSON.stringify(e.params)}`);
        return EXIT.refused;
      }
    }

    const orderId = args[0]!;
    if (command === 'provenance') {
      let bytes: Buffer;
      try {
        bytes = await fs.readFile(args[0]!);
      } catch (e) {
        io.err(`Cannot read ${args[0]}: ${(e as Error).message}`);
        return EXIT.usage;
      }
      const provenance = new Provenance({
        db: db.kysely,
        keys: provenanceKeys(loadSecret(config.SECRET, config.DATA_DIR)),
        producer: config.AIGC_CONTENT_PRODUCER,
        propagator: config.AIGC_CONTENT_PROPAGATOR,
      });
      let v;
      try {
        v = await verifyAudio(bytes, { provenance, detect: watermarkDetector(provenance.watermarkKey) });
      } catch (e) {
        io.err(`${args[0]} is not audio this command can read: ${(e as Error).message}`);
        return EXIT.refused;
      }
      for (const line of await describeProvenance(v, emailOf)) io.out(line);
      return v.ai_generated ? EXIT.ok : EXIT.refused;
    }

    if (command === 'order') {
      const order = await orders.find(orderId);
      if (!order) {
        io.err(`No order ${orderId}.`);
        return EXIT.refused;
      }
      const payments = await db.kysely
        .selectFrom('payments')
        .select(['id', 'method', 'amount', 'currency', 'status', 'provider_ref', 'created_at'])
        .where('order_id', '=', order.id)
        .orderBy('created_at')
        .execute();
      for (const line of describeOrder(order, await emailOf(order.account_id), payments)) io.out(line);
      return EXIT.ok;
    }

    const secret = loadSecret(config.SECRET, config.DATA_DIR);
    const payments = new PaymentsService({
      db: db.kysely,
      orders,
      providers: createProviders(config, secret),
      secret,
      publicUrl: config.PUBLIC_URL,
    });
    try {
      const result = await payments.refund(orderId);
      io.out(`Refunded ${orderId}.`);
      io.out(
        `  credits used since payment: ${count(result.used)} (${count(result.usedAtBasic)} of this order's credits at the basic plan's price)`,
      );
      io.out(`  credits deducted:           ${count(result.deducted)} (balance now ${count(result.balance)})`);
      io.out(
        `  money to return:            ${money(result.amount, result.currency)} of ${money(Number(result.order.amount), result.currency)}`,
      );
      io.out(
        result.refundRef
          ? `  returned through ${result.order.method ?? 'the provider'}: refund ${result.refundRef}`
          : `  no money to return`,
      );
      return EXIT.ok;
    } catch (e) {
      if (e instanceof RefundFailed) {
        io.err(`Order ${orderId} was not refunded: the provider did not return the money (${e.message}).`);
        io.err(
          'The credits it had taken off the balance were given back (a refund record and its return); run the refund again once the provider answers.',
        );
        return EXIT.refused;
      }
      if (!isAppError(e)) throw e;
      const order = await orders.find(orderId);
      if (!order) io.err(`No order ${orderId}.`);
      else if (order.refunded_at) io.err(`Order ${orderId} was already refunded at ${order.refunded_at}.`);
      else if (order.refund_claim)
        io.err(`Order ${orderId} is being refunded by another command (since ${order.refund_claimed_at}).`);
      else if (order.status !== 'successful') io.err(`Order ${orderId} is ${order.status}: only a successful order is refunded.`);
      else io.err(`Order ${orderId} could not be refunded: ${e.code}.`);
      return EXIT.refused;
    }
  } finally {
    await db.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  runAdmin(process.argv.slice(2), process.env, { out: (l) => console.log(l), err: (l) => console.error(l) }).then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
