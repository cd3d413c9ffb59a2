import { useState, type FormEvent } from 'react';
import { Button, Group, Stack, Text, TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '@polyvox/contracts';
import { bindMobile, type Account } from '../../api/accounts';
import { describeError, isApiError } from '../../api/errors';
import { checkCode, type CodeProblem } from '../../auth/validation';
import { currentUiLocale } from '../../i18n';
import { useLocaleChoice } from '../../i18n/hooks';
import { queryClient } from '../../lib/query-client';
import { notifyError, notifySuccess } from '../../lib/notify';
import { ME_KEY } from '../../auth/session-controller';
import { CodeRow } from './ProfileEmail';

/** Answers about the codes or the number are shown in the form; anything else as a notification. */
const FORM_CODES = new Set(['CAPTCHA_INCORRECT', 'PHONE_TAKEN', 'PHONE_FORMAT', 'VALIDATION_FAILED', 'PARAMETERS_NEEDED']);

interface Problems {
  code?: CodeProblem;
  currentCode?: CodeProblem;
  mobile?: boolean;
  server?: string;
}

/**
 * Binds a phone number to the account, or changes it: a code texted to the new number, and to change one, a code
 * texted to the current number too (the server checks both). Where the operator requires real-name users, a bound
 * number is what cloning, design, API keys and buying need.
 */
export function ProfileMobile({ account }: { account: Account }) {
  const { t } = useTranslation();
  const { ui: locale } = useLocaleChoice();
  const [open, setOpen] = useState(false);
  const [mobile, setMobile] = useState('');
  const [code, setCode] = useState('');
  const [currentCode, setCurrentCode] = useState('');
  const [problems, setProblems] = useState<Problems>({});
  const current = account.mobile ?? '';
  const next = mobile.trim();

  const submit = useMutation({
    mutationFn: () => bindMobile(next, code.trim(), current ? currentCode.trim() : undefined),
    meta: { silent: true },
    onSuccess: (result) => {
      queryClient.setQueryData(ME_KEY, result);
      void queryClient.invalidateQueries({ queryKey: ME_KEY });
      notifySuccess(t('mobileBind.done', { mobile: result.mobile ?? next }));
      reset();
    },
    onError: (err) => {
      if (isApiError(err) && FORM_CODES.has(err.code)) {
        setProblems({ server: describeError(err, currentUiLocale(), t('errors.network')) });
      } else notifyError(err);
    },
  });

  function reset() {
    setOpen(false);
    setMobile('');
    setCode('');
    setCurrentCode('');
    setProblems({});
  }

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    if (submit.isPending) return;
    const found: Problems = {
      mobile: next === '',
      code: checkCode(code) ?? undefined,
      currentCode: current ? (checkCode(currentCode) ?? undefined) : undefined,
    };
    setProblems(found);
    if (found.mobile || found.code || found.currentCode) return;
    submit.mutate();
  }

  const codeText = (problem: CodeProblem | undefined) =>
    problem === 'required' ? t('signIn.codeRequired') : problem ? errorMessage('CAPTCHA_INCORRECT', locale) : null;

  if (!open) {
    return (
      <Group justify="space-between" data-testid="profile-mobile">
        <Stack gap={2}>
          <Text size="xs" c="dimmed" fw={500} tt="uppercase">
            {t('mobileBind.label')}
          </Text>
          <Text data-testid="profile-mobile-value">{current || t('mobileBind.none')}</Text>
        </Stack>
        <Button variant="light" onClick={() => setOpen(true)} data-testid="mobile-bind-open">
          {current ? t('mobileBind.change') : t('mobileBind.bind')}
        </Button>
      </Group>
    );
  }

  return (
    <form onSubmit={onSubmit} noValidate data-testid="mobile-bind-form">
      <Stack gap="md">
        <Text fw={600}>{t('mobileBind.title')}</Text>
        <Text size="sm" c="dimmed">
          {t('mobileBind.explain')}
        </Text>
        {current ? (
          <CodeRow
            method="phone"
            email={current}
            label={t('mobileBind.currentCode', { mobile: current })}
            value={currentCode}
            onChange={(v) => {
              setCurrentCode(v);
              setProblems((p) => ({ ...p, currentCode: undefined, server: undefined }));
            }}
            error={codeText(problems.currentCode)}
            testId="mobile-bind-current"
          />
        ) : null}
        <TextInput
          label={t('mobileBind.newMobile')}
          placeholder={t('signIn.mobilePlaceholder')}
          type="tel"
          autoComplete="tel"
          value={mobile}
          onChange={(e) => {
            setMobile(e.currentTarget.value);
            setProblems((p) => ({ ...p, mobile: false, server: undefined }));
          }}
          error={problems.mobile ? errorMessage('PHONE_FORMAT', locale) : null}
          data-testid="mobile-bind-mobile"
        />
        <CodeRow
          method="phone"
          email={next}
          label={t('mobileBind.newCode')}
          value={code}
          onChange={(v) => {
            setCode(v);
            setProblems((p) => ({ ...p, code: undefined, server: undefined }));
          }}
          error={codeText(problems.code)}
          onSendBlocked={() => {
            if (next) return false;
            setProblems((p) => ({ ...p, mobile: true }));
            return true;
          }}
          testId="mobile-bind-new"
        />
        {problems.server ? (
          <Text size="sm" c="red.8" data-testid="mobile-bind-error">
            {problems.server}
          </Text>
        ) : null}
        <Group justify="flex-end" gap="xs">
          <Button variant="default" onClick={reset} data-testid="mobile-bind-cancel">
            {t('common.cancel')}
          </Button>
          <Button type="submit" loading={submit.isPending} data-testid="mobile-bind-submit">
            {t('mobileBind.submit')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
