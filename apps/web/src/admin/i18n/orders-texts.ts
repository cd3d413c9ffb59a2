import { useCallback } from 'react';
import { useLocaleChoice } from '../../i18n/hooks';
import { ordersEn } from './orders-en';
import { ordersZhCN } from './orders-zh-CN';
import { ordersZhTW } from './orders-zh-TW';
import type { OrdersMessages } from './orders-types';

const BY_LOCALE: Record<string, OrdersMessages> = { en: ordersEn, 'zh-CN': ordersZhCN, 'zh-TW': ordersZhTW };

/** `{{name}}` placeholders filled from `values`. */
export function fill(text: string, values: Record<string, string | number> = {}): string {
  return text.replace(/\{\{(\w+)\}\}/g, (_, k: string) => (Object.hasOwn(values, k) ? String(values[k]) : `{{${k}}}`));
}

/** The orders pages' texts in the console's language (they ship with these pages' chunks only). */
export function useOrdersTexts(): { tx: OrdersMessages; f: typeof fill } {
  const { ui } = useLocaleChoice();
  const tx = BY_LOCALE[ui] ?? ordersEn;
  return { tx, f: useCallback(fill, []) };
}
