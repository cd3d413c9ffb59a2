import 'i18next';
import type { en } from './en';
import type { adminEn } from '../admin/i18n/en';
import type { enginesEn } from '../admin/i18n/engines-en';
import type { settingsEn } from '../admin/i18n/settings-en';

declare module 'i18next' {
  interface CustomTypeOptions {
    defaultNS: 'translation';
    resources: {
      translation: typeof en;
      admin: typeof adminEn;
      adminEngines: typeof enginesEn;
      adminSettings: typeof settingsEn;
    };
  }
}
