import type { CompiledQuery, Kysely } from 'kysely';

/**
 * A query built and compiled once per database, then run with other parameter values. Kysely builds every query as a
 * tree of frozen nodes and compiles it to SQL anew on each run: tens of kilobytes of garbage for the event loop's
 * collector, on reads that run on every request (a session, an account). Kysely's own recipe splits building and
 * compiling from running (`executeQuery` of a `CompiledQuery`); this keeps the compiled query and puts the values in.
 *
 * `build` gets a marker in place of each parameter; each must reach the compiled query as a bound value (a `where`
 * comparison, not an identifier or part of a literal), which the first run checks.
 */
export function preparedQuery<DB, P extends string[], R>(
  build: (db: Kysely<DB>, ...params: P) => { compile(): CompiledQuery<R> },
): (db: Kysely<DB>, ...params: P) => Promise<R[]> {
  const compiled = new WeakMap<Kysely<DB>, { query: CompiledQuery<R>; slots: number[] }>();
  return async (db, ...params) => {
    let kept = compiled.get(db);
    if (!kept) {
      const markers = params.map((_, i) => `\u0000prepared-parameter-${i}\u0000`) as P;
      const query = build(db, ...markers).compile();
      const slots = query.parameters.map((value) => markers.indexOf(value as string));
      markers.forEach((_, i) => {
        if (!slots.includes(i)) throw new Error(`preparedQuery: parameter ${i} is not a bound value of the query`);
      });
      kept = { query, slots };
      // A transaction is a Kysely of its own, used once: its query is compiled for it and not kept.
      if (!db.isTransaction) compiled.set(db, kept);
    }
    const { query, slots } = kept;
    const parameters = query.parameters.map((value, j) => (slots[j]! >= 0 ? params[slots[j]!] : value));
    return (await db.executeQuery<R>({ ...query, parameters })).rows;
  };
}
