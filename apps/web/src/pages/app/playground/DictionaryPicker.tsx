import { Anchor, MultiSelect, Paper } from '@mantine/core';
import { Link } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import type { Locator } from '../../../speech/pronunciation';
import { useDictionaries } from '../pronunciation/queries';

export const MAX_DICTIONARIES = 3;

/** Dictionary ids as a request's `pronunciation_dictionary_locators` (each at its latest version); none: the field is left out. */
export function locatorsOf(ids: readonly string[]): { pronunciation_dictionary_locators?: Locator[] } {
  return ids.length ? { pronunciation_dictionary_locators: ids.map((id) => ({ pronunciation_dictionary_id: id })) } : {};
}

interface Props {
  value: string[];
  onChange: (ids: string[]) => void;
  disabled?: boolean;
  label?: string;
  testId?: string;
  /** In a bordered card of its own (the playground's side column). */
  framed?: boolean;
}

/** Up to three pronunciation dictionaries, in the order applied; none chosen, the account's default applies. */
export function DictionaryPicker({ value, onChange, disabled, label, testId = 'dictionary-picker', framed }: Props) {
  const { t } = useTranslation();
  const list = useDictionaries(false);
  const data = (list.data?.pronunciation_dictionaries ?? []).map((d) => ({
    value: d.id,
    label: d.default ? `${d.name} (${t('pronunciation.default')})` : d.name,
  }));
  const picker = (
    <MultiSelect
      label={label ?? t('pronunciation.pickerLabel')}
      description={
        <>
          {t('pronunciation.pickerHint')}{' '}
          <Anchor component={Link} to="/app/pronunciation" size="xs" underline="always">
            {t('pronunciation.pickerManage')}
          </Anchor>
        </>
      }
      placeholder={value.length ? undefined : t('pronunciation.pickerPlaceholder')}
      data={data}
      value={value}
      onChange={onChange}
      maxValues={MAX_DICTIONARIES}
      clearable
      searchable
      disabled={disabled}
      data-testid={testId}
    />
  );
  return framed ? (
    <Paper withBorder radius="md" p="lg">
      {picker}
    </Paper>
  ) : (
    picker
  );
}
