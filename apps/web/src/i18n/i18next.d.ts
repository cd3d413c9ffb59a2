import 'i18next';
import type { en } from './en';
import type { adminEn } from '../admin/i18n/en';

declare module 'i18next' {
  interface CustomTypeOptions {
    defaultNS: 'translation';
    resources: { translation: typeof en; admin: typeof adminEn };
  }
}
