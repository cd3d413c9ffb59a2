import type { adminEn } from './en';

type Widen<T> = { readonly [K in keyof T]: T[K] extends string ? string : Widen<T[K]> };
/** The operator console's texts: each translation matches `adminEn` key for key. */
export type AdminMessages = Widen<typeof adminEn>;
