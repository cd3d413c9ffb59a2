import { useState, type FormEvent } from 'react';
import { Button, Group, Stack, Text, TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { errorMessage, LIMITS } from '@polyvox/contracts';
import { changeEmail, registerEmail, type Account } from '../../api/accounts';
import { describeError, isApiError } from '../../api/errors';
import { session } from '../../auth/session';
import { useCooldown } from '../../auth/useCooldown';
import { useSendCode, type SignInMethod } from '../../auth/useSignInFlow';
import { checkCode, checkEmail, type CodeProblem, type EmailProblem } from '../../auth/validation';
import { currentUiLocale } from '../../i18n';
import { useLocaleChoice } from '../../i18n/hooks';
import { notifyError, notifySuccess } from '../../lib/notify';

interface Problems {
  email?: EmailProblem;
  code?: CodeProblem;
  currentCode?: CodeProblem;
  server?: string;
}

/** Answers about the codes or the address are shown in the form; anything else as a notification. */
const FORM_CODES = new Set(['CAPTCHA_INCORRECT', 'EMAIL_TAKEN', 'EMAIL_FORMAT', 'VALIDATION_FAILED', 'PARAMETERS_NEEDED']);

/** One code field with its send button and countdown, for one address (or number). */
export function CodeRow(props: {
  method?: SignInMethod;
  email: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  error: string | null;
  onSendBlocked?: () => boolean;
  testId: string;
}) {
  const { t } = useTranslation();
  const cooldown = useCooldown(props.email);
  const sendCode = useSendCode(cooldown, props.method ?? 'email');
  return (
    <Group align="flex-start" gap="xs" wrap="nowrap">
      <TextInput
        style={{ flex: 1 }}
        label={props.label}
        placeholder={t('signIn.codePlaceholder')}
        inputMode="numeric"
        autoComplete="one-time-code"
        maxLength={LIMITS.codeLength}
        value={props.value}
        onChange={(e) => props.onChange(e.currentTarget.value.replace(/\D/g, ''))}
        error={props.error}
        data-testid={`${props.testId}-code`}
      />
      <Button
        mt={25}
        variant="light"
        miw={128}
        loading={sendCode.isPending}
        disabled={cooldown.left > 0}
        onClick={() => {
          if (sendCode.isPending || cooldown.blocked(props.email) || props.onSendBlocked?.()) return;
          sendCode.mutate(props.email);
        }}
        data-testid={`${props.testId}-send`}
        data-countdown={cooldown.left}
      >
        {cooldown.left > 0 ? t('signIn.resendIn', { seconds: String(cooldown.left) }) : t('signIn.sendCode')}
      </Button>
    </Group>
  );
}

/**
 * A registered account changes its email with a code from its current address and one from the new
 * address; the server then ends every other session and answers with a new one, adopted here.
 */
export function ProfileEmail({ account }: { account: Account }) {
  const { t } = useTranslation();
  const { ui: locale } = useLocaleChoice();
  const [open, setOpen] = useState(false);
  const [email, setEmail] = useState('');
  const [code, setCode] = useState('');
  const [currentCode, setCurrentCode] = useState('');
  const [problems, setProblems] = useState<Problems>({});
  const current = account.email ?? '';
  const next = email.trim();

  const submit = useMutation({
    // An account registered by phone has no email yet: it binds one with the new address's code alone.
    mutationFn: () => (current ? changeEmail(next, code.trim(), currentCode.trim()) : registerEmail(next, code.trim())),
    meta: { silent: true },
    onSuccess: (result) => {
      session.adopt(result);
      notifySuccess(t('emailChange.done', { email: result.account.email ?? next }));
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
    setEmail('');
    setCode('');
    setCurrentCode('');
    setProblems({});
  }

  function emailProblem(): EmailProblem | undefined {
    const problem = checkEmail(next) ?? undefined;
    setProblems((p) => ({ ...p, email: problem }));
    return problem;
  }

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    if (submit.isPending) return;
    const found: Problems = {
      email: checkEmail(next) ?? undefined,
      code: checkCode(code) ?? undefined,
      currentCode: current ? (checkCode(currentCode) ?? undefined) : undefined,
    };
    setProblems(found);
    if (found.email || found.code || found.currentCode) return;
    submit.mutate();
  }

  const codeText = (problem: CodeProblem | undefined) =>
    problem === 'required' ? t('signIn.codeRequired') : problem ? errorMessage('CAPTCHA_INCORRECT', locale) : null;

  if (!open) {
    return (
      <Group justify="space-between" data-testid="profile-email-change">
        <Text size="sm" c="dimmed">
          {t('emailChange.hint')}
        </Text>
        <Button variant="light" onClick={() => setOpen(true)} data-testid="email-change-open">
          {t('emailChange.open')}
        </Button>
      </Group>
    );
  }

  return (
    <form onSubmit={onSubmit} noValidate data-testid="email-change-form">
      <Stack gap="md">
        <Text fw={600}>{t('emailChange.title')}</Text>
        <Text size="sm" c="dimmed">
          {t('emailChange.explain')}
        </Text>
        {current ? (
          <CodeRow
            email={current}
            label={t('emailChange.currentCode', { email: current })}
            value={currentCode}
            onChange={(v) => {
              setCurrentCode(v);
              setProblems((p) => ({ ...p, currentCode: undefined, server: undefined }));
            }}
            error={codeText(problems.currentCode)}
            testId="email-change-current"
          />
        ) : null}
        <TextInput
          label={t('emailChange.newEmail')}
          placeholder={t('signIn.emailPlaceholder')}
          type="email"
          autoComplete="email"
          value={email}
          onChange={(e) => {
            setEmail(e.currentTarget.value);
            setProblems((p) => ({ ...p, email: undefined, server: undefined }));
          }}
          error={problems.email ? errorMessage(problems.email, locale) : null}
          data-testid="email-change-email"
        />
        <CodeRow
          email={next}
          label={t('emailChange.newCode')}
          value={code}
          onChange={(v) => {
            setCode(v);
            setProblems((p) => ({ ...p, code: undefined, server: undefined }));
          }}
          error={codeText(problems.code)}
          onSendBlocked={() => emailProblem() !== undefined}
          testId="email-change-new"
        />
        {problems.server ? (
          <Text size="sm" c="red.8" data-testid="email-change-error">
            {problems.server}
          </Text>
        ) : null}
        <Group justify="flex-end" gap="xs">
          <Button variant="default" onClick={reset} data-testid="email-change-cancel">
            {t('common.cancel')}
          </Button>
          <Button type="submit" loading={submit.isPending} data-testid="email-change-submit">
            {t('emailChange.submit')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
