import { currentUiLocale } from '../i18n';
import { createStats } from './stats';

/** The console's one statistics client. */
export const stats = createStats({ getLang: currentUiLocale });
