import { useTranslation } from 'react-i18next';
import { planKey } from '../../lib/format';

/** vip.level as a localized name; a level the console does not know yet is shown as sent. */
export function usePlanLabel(): (level: string) => string {
  const { t } = useTranslation();
  return (level) => {
    const key = planKey(level);
    return key ? t(`plans.${key}`) : level;
  };
}
