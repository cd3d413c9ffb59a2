import { i18n } from '../../i18n';
import { enginesEn } from './engines-en';
import { enginesZhCN } from './engines-zh-CN';
import { enginesZhTW } from './engines-zh-TW';
import { settingsEn } from './settings-en';
import { settingsZhCN } from './settings-zh-CN';
import { settingsZhTW } from './settings-zh-TW';

/** The Engines and Settings pages' texts (namespaces `adminEngines`, `adminSettings`), added with their chunks. */
export function addEnginesMessages(): void {
  i18n.addResourceBundle('en', 'adminEngines', enginesEn, true, true);
  i18n.addResourceBundle('zh-CN', 'adminEngines', enginesZhCN, true, true);
  i18n.addResourceBundle('zh-TW', 'adminEngines', enginesZhTW, true, true);
  i18n.addResourceBundle('en', 'adminSettings', settingsEn, true, true);
  i18n.addResourceBundle('zh-CN', 'adminSettings', settingsZhCN, true, true);
  i18n.addResourceBundle('zh-TW', 'adminSettings', settingsZhTW, true, true);
}
