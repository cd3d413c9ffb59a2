import type { ordersEn } from './orders-en';

type Widen<T> = { readonly [K in keyof T]: T[K] extends string ? string : Widen<T[K]> };
/** The shape of the orders pages' English texts: each translation matches it key for key. */
export type OrdersMessages = Widen<typeof ordersEn>;
