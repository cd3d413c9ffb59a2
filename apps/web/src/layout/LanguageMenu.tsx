import { Button, Menu, Text } from '@mantine/core';
import { IconCheck, IconChevronDown } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { LOCALE_FLAGS } from '@polyvox/contracts';
import { chooseLocale } from '../i18n';
import { useLocaleChoice } from '../i18n/hooks';
import { isTranslated, localeInfo } from '../i18n/locale';
import { flagUrl } from '../lib/flags';

/** The language a menu code stands for, as Intl names it: the script for Chinese (a flag shows the region). */
const NAMED_AS = new Map([
  ['zh-CN', 'zh-Hans'],
  ['zh-HK', 'zh-Hant'],
  ['en-US', 'en'],
]);

/** A locale's language named in the interface's language ("Traditional Chinese", "葡萄牙语"). */
export function languageName(code: string, ui: string): string {
  try {
    return new Intl.DisplayNames([ui], { type: 'language' }).of(NAMED_AS.get(code) ?? code) ?? code;
  } catch {
    return code;
  }
}

const FULL = LOCALE_FLAGS.filter((l) => isTranslated(l.code));
const MORE = LOCALE_FLAGS.filter((l) => !isTranslated(l.code));

function Flag({ country }: { country: string }) {
  const src = flagUrl(country);
  if (!src) return null;
  return (
    <img
      src={src}
      alt=""
      aria-hidden="true"
      width={20}
      height={15}
      loading="lazy"
      data-flag={country}
      style={{ display: 'block', borderRadius: 2, boxShadow: '0 0 0 1px rgba(0,0,0,0.08)' }}
    />
  );
}

/**
 * Three locales are fully translated; the other 37 can be picked and show English until their
 * translation lands, with their own flag kept in the menu so the choice is visibly remembered.
 * A flag stands for a country, not a language (繁體中文 has Hong Kong's, English the United States', Português
 * Portugal's): each entry names its language in the interface's language too, and says before it is picked
 * when the interface will be in English. On a phone the button shows the flag alone (the header has no room for more); its
 * accessible name names the language.
 */
export function LanguageMenu() {
  const { t } = useTranslation();
  const { choice, ui } = useLocaleChoice();
  const current = localeInfo(choice);

  const option = (l: (typeof LOCALE_FLAGS)[number], fallback: boolean) => {
    const language = languageName(l.code, ui);
    const note = fallback ? `${language} · ${t('language.englishInterface')}` : language;
    return (
      <Menu.Item
        key={l.code}
        onClick={() => void chooseLocale(l.code)}
        leftSection={<Flag country={l.flag} />}
        rightSection={l.code === choice ? <IconCheck size={14} /> : null}
        data-testid={`lang-option-${l.code}`}
        data-fallback={fallback ? 'en' : undefined}
        aria-label={`${l.name} (${note})`}
      >
        <Text size="sm" lang={l.code}>
          {l.name}
        </Text>
        <Text size="xs" c="dimmed" data-testid="lang-option-note">
          {note}
        </Text>
      </Menu.Item>
    );
  };

  return (
    <Menu position="bottom-end" width={250} shadow="md" withinPortal>
      <Menu.Target>
        <Button
          variant="subtle"
          color="gray"
          size="sm"
          px="xs"
          // The visible language name starts the accessible name (WCAG 2.5.3), the menu's purpose follows.
          aria-label={`${current.name} · ${t('language.menu')}`}
          rightSection={<IconChevronDown size={14} />}
          data-testid="language-menu"
          data-locale={choice}
        >
          <span style={{ marginRight: 6 }}>
            <Flag country={current.flag} />
          </span>
          <Text size="sm" visibleFrom="sm" span>
            {current.name}
          </Text>
        </Button>
      </Menu.Target>
      <Menu.Dropdown>
        {/* A plain scrolling box: the menu is on the first page, Mantine's ScrollArea would add to it. */}
        <div style={{ maxHeight: 420, overflowY: 'auto' }} data-testid="language-list">
          <Menu.Label>{t('language.full')}</Menu.Label>
          {FULL.map((l) => option(l, false))}
          <Menu.Divider />
          <Menu.Label>
            {t('language.more')}
            <Text size="xs" c="dimmed" fw={400}>
              {t('language.fallbackHint')}
            </Text>
          </Menu.Label>
          {MORE.map((l) => option(l, true))}
        </div>
      </Menu.Dropdown>
    </Menu>
  );
}
