import type { en } from './en';

/** The shape of `en` with every leaf widened to `string`: each translation must match it key for key. */
type Widen<T> = { readonly [K in keyof T]: T[K] extends string ? string : Widen<T[K]> };
export type Messages = Widen<typeof en>;
