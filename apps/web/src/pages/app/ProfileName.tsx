import { useState, type FormEvent } from 'react';
import { Button, Group, TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { LIMITS } from '@polyvox/contracts';
import { updateProfile, type Account } from '../../api/accounts';
import { describeError, isApiError } from '../../api/errors';
import { ME_KEY } from '../../auth/session-controller';
import { currentUiLocale } from '../../i18n';
import { notifyError, notifySuccess } from '../../lib/notify';
import { queryClient } from '../../lib/query-client';

/** Problems with the name itself are shown under the field; anything else as a notification. */
const FIELD_CODES = new Set(['SENSITIVE_WORDS', 'VALIDATION_FAILED', 'PARAMETERS_NEEDED']);

export function ProfileName({ account }: { account: Account }) {
  const { t } = useTranslation();
  const [draft, setDraft] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const value = draft ?? account.name ?? '';

  const save = useMutation({
    mutationFn: (name: string) => updateProfile({ name }),
    meta: { silent: true },
    onSuccess: (next) => {
      queryClient.setQueryData(ME_KEY, next);
      setDraft(null);
      notifySuccess(t('profile.nameSaved'));
    },
    onError: (err) => {
      if (isApiError(err) && FIELD_CODES.has(err.code)) setError(describeError(err, currentUiLocale(), t('errors.network')));
      else notifyError(err);
    },
  });

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    const name = value.trim();
    if (!name || name === account.name) return;
    save.mutate(name);
  }

  const unchanged = !value.trim() || value.trim() === (account.name ?? '');
  return (
    <form onSubmit={onSubmit}>
      <Group align="flex-start" gap="xs" wrap="nowrap">
        <TextInput
          style={{ flex: 1 }}
          label={t('profile.name')}
          placeholder={t('profile.namePlaceholder')}
          maxLength={LIMITS.nameMaxLength}
          value={value}
          onChange={(e) => {
            setDraft(e.currentTarget.value);
            setError(null);
          }}
          error={error}
          data-testid="profile-name"
        />
        <Button type="submit" mt={25} loading={save.isPending} disabled={unchanged} data-testid="profile-name-save">
          {t('common.save')}
        </Button>
      </Group>
    </form>
  );
}
