import { Checkbox, Group, SegmentedControl, Select, Stack, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { Rule } from '../../../speech/pronunciation';

export interface RuleDraft {
  word: string;
  type: 'alias' | 'phoneme';
  value: string;
  alphabet: 'ipa' | 'cmu-arpabet';
  caseSensitive: boolean;
  wholeWords: boolean;
}

export const EMPTY_RULE: RuleDraft = {
  word: '',
  type: 'alias',
  value: '',
  alphabet: 'ipa',
  caseSensitive: true,
  wholeWords: true,
};

/** The rule a draft makes (options only when they differ from the defaults, as ElevenLabs writes them), or null. */
export function ruleOf(d: RuleDraft): Rule | null {
  const word = d.word.trim();
  const value = d.value.trim();
  if (!word || !value) return null;
  const options = {
    ...(d.caseSensitive ? {} : { case_sensitive: false }),
    ...(d.wholeWords ? {} : { word_boundaries: false }),
  };
  return d.type === 'alias'
    ? { type: 'alias', string_to_replace: word, alias: value, ...options }
    : { type: 'phoneme', string_to_replace: word, phoneme: value, alphabet: d.alphabet, ...options };
}

/** The fields of one rule: the word, alias or phonemes (with the alphabet), and the two matching options. */
export function RuleFields({ value, onChange, testId }: { value: RuleDraft; onChange: (d: RuleDraft) => void; testId: string }) {
  const { t } = useTranslation();
  const set = (patch: Partial<RuleDraft>) => onChange({ ...value, ...patch });
  return (
    <Stack gap="xs" data-testid={testId}>
      <Group grow align="flex-end" wrap="wrap" gap="xs">
        <TextInput
          label={t('pronunciation.word')}
          value={value.word}
          onChange={(e) => set({ word: e.currentTarget.value })}
          maxLength={500}
          miw={140}
          data-testid={`${testId}-word`}
        />
        <SegmentedControl
          value={value.type}
          onChange={(type) => set({ type: type as RuleDraft['type'] })}
          data={[
            { value: 'alias', label: t('pronunciation.alias') },
            { value: 'phoneme', label: t('pronunciation.phoneme') },
          ]}
          aria-label={t('pronunciation.type')}
          miw={160}
          data-testid={`${testId}-type`}
        />
      </Group>
      <Group grow align="flex-end" wrap="wrap" gap="xs">
        <TextInput
          label={value.type === 'alias' ? t('pronunciation.aliasValue') : t('pronunciation.phonemeValue')}
          value={value.value}
          onChange={(e) => set({ value: e.currentTarget.value })}
          maxLength={500}
          miw={140}
          data-testid={`${testId}-value`}
        />
        {value.type === 'phoneme' && (
          <Select
            label={t('pronunciation.alphabet')}
            value={value.alphabet}
            onChange={(a) => a && set({ alphabet: a as RuleDraft['alphabet'] })}
            data={[
              { value: 'ipa', label: t('pronunciation.ipa') },
              { value: 'cmu-arpabet', label: t('pronunciation.arpabet') },
            ]}
            allowDeselect={false}
            miw={140}
            data-testid={`${testId}-alphabet`}
          />
        )}
      </Group>
      <Group gap="md" wrap="wrap">
        <Checkbox
          label={t('pronunciation.caseSensitive')}
          checked={value.caseSensitive}
          onChange={(e) => set({ caseSensitive: e.currentTarget.checked })}
          data-testid={`${testId}-case`}
        />
        <Checkbox
          label={t('pronunciation.wholeWord')}
          checked={value.wholeWords}
          onChange={(e) => set({ wholeWords: e.currentTarget.checked })}
          data-testid={`${testId}-whole`}
        />
      </Group>
    </Stack>
  );
}
