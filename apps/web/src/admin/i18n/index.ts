import { i18n } from '../../i18n';
import { adminEn } from './en';
import { adminZhCN } from './zh-CN';
import { adminZhTW } from './zh-TW';

/** The console's texts, namespace `admin`: all three come with the console's own chunk (the customer's pages carry none). */
export function addAdminMessages(): void {
  i18n.addResourceBundle('en', 'admin', adminEn, true, true);
  i18n.addResourceBundle('zh-CN', 'admin', adminZhCN, true, true);
  i18n.addResourceBundle('zh-TW', 'admin', adminZhTW, true, true);
}
