import { currentUiLocale } from '../i18n';
import { createStats } from './stats';

export { trackRouter, trackUncaughtErrors } from './stats';

/** The console's one statistics client. */
export const stats = createStats({ getLang: currentUiLocale });
