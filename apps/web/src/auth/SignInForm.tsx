import { useState, type FormEvent } from 'react';
import { Anchor, Button, Checkbox, Group, Modal, SegmentedControl, Stack, Text, TextInput } from '@mantine/core';
import { Trans, useTranslation } from 'react-i18next';
import { errorMessage, LIMITS } from '@polyvox/contracts';
import { ApiError } from '../api/errors';
import { useLocaleChoice } from '../i18n/hooks';
import { AgreementDialog } from './AgreementDialog';
import { useSignIn } from './SignInContext';
import { useCooldown } from './useCooldown';
import { useSendCode, useSubmitSignIn, type SignInMethod } from './useSignInFlow';
import { checkCode, checkEmail, type CodeProblem, type EmailProblem } from './validation';

/** The server's answers that mean the code itself was wrong. */
const CODE_REFUSALS = new Set(['SIGN_IN_FAILED', 'CAPTCHA_INCORRECT']);
/** Answers about the number itself, shown under it. */
const NUMBER_REFUSALS = new Set(['PHONE_FORMAT', 'VALIDATION_FAILED']);

interface Problems {
  email?: EmailProblem;
  code?: CodeProblem;
  agreement?: boolean;
}

/** The sign-in modal's content: its own chunk, loaded the first time the modal opens. */
export function SignInForm() {
  const { t } = useTranslation();
  const { ui: locale } = useLocaleChoice();
  const { opened, close } = useSignIn();
  // Phone first where the brief's home market signs in by phone.
  const [method, setMethod] = useState<SignInMethod>(locale === 'zh-CN' ? 'phone' : 'email');
  const [email, setEmail] = useState('');
  const [mobile, setMobile] = useState('');
  const [code, setCode] = useState('');
  const [agreed, setAgreed] = useState(false);
  const [problems, setProblems] = useState<Problems>({});
  const [confirming, setConfirming] = useState(false);
  const target = method === 'phone' ? mobile.trim() : email.trim();
  const cooldown = useCooldown(target);
  const sendCode = useSendCode(cooldown, method);
  const submit = useSubmitSignIn(() => {
    setCode('');
    setProblems({});
  });

  const trimmedEmail = email.trim();

  function onSend() {
    if (method === 'phone') {
      if (sendCode.isPending || !target || cooldown.blocked(target)) return;
      sendCode.mutate(target);
      return;
    }
    if (sendCode.isPending || cooldown.blocked(trimmedEmail)) return;
    const emailProblem = checkEmail(trimmedEmail);
    setProblems((p) => ({ ...p, email: emailProblem ?? undefined }));
    if (emailProblem) return;
    sendCode.mutate(trimmedEmail);
  }

  function proceed() {
    submit.mutate({ email: method === 'phone' ? target : trimmedEmail, vcode: code.trim(), method });
  }

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    if (submit.isPending) return;
    const next: Problems = {
      email: method === 'email' ? (checkEmail(trimmedEmail) ?? undefined) : undefined,
      code: checkCode(code) ?? undefined,
    };
    setProblems(next);
    if (next.email || next.code) return;
    if (!agreed) {
      setConfirming(true);
      return;
    }
    proceed();
  }

  // A code the server refused (wrong or expired) marks the code field, with the server's own localized words.
  const refused = submit.error instanceof ApiError && CODE_REFUSALS.has(submit.error.code) ? submit.error.message : null;
  const numberError =
    sendCode.error instanceof ApiError && NUMBER_REFUSALS.has(sendCode.error.code) ? sendCode.error.message : null;
  const codeError =
    problems.code === 'required' ? t('signIn.codeRequired') : problems.code ? errorMessage('CAPTCHA_INCORRECT', locale) : refused;

  return (
    <Modal
      opened={opened}
      onClose={close}
      title={t('signIn.title')}
      centered
      size="md"
      styles={{ title: { fontWeight: 700, fontSize: 'var(--mantine-font-size-lg)' } }}
      data-testid="signin-modal"
    >
      <form onSubmit={onSubmit} noValidate data-testid="signin-form">
        <Stack gap="md">
          <Text size="sm" c="dimmed">
            {t('signIn.subtitle')}
          </Text>
          <SegmentedControl
            fullWidth
            value={method}
            onChange={(v) => {
              setMethod(v as SignInMethod);
              setProblems({});
              sendCode.reset();
            }}
            data={(locale === 'zh-CN' ? (['phone', 'email'] as const) : (['email', 'phone'] as const)).map((m) => ({
              value: m,
              label: <span data-testid={`signin-by-${m}`}>{t(`signIn.by.${m}`)}</span>,
            }))}
            data-testid="signin-method"
          />
          {method === 'phone' ? (
            <TextInput
              label={t('signIn.mobile')}
              placeholder={t('signIn.mobilePlaceholder')}
              type="tel"
              autoComplete="tel"
              value={mobile}
              onChange={(e) => {
                setMobile(e.currentTarget.value);
                if (sendCode.error) sendCode.reset();
              }}
              error={numberError}
              data-testid="signin-mobile"
              data-autofocus
            />
          ) : (
            <TextInput
              label={t('signIn.email')}
              placeholder={t('signIn.emailPlaceholder')}
              type="email"
              autoComplete="email"
              value={email}
              onChange={(e) => {
                setEmail(e.currentTarget.value);
                setProblems((p) => ({ ...p, email: undefined }));
              }}
              error={problems.email ? errorMessage(problems.email, locale) : null}
              data-testid="signin-email"
              data-autofocus
            />
          )}
          <Group align="flex-start" gap="xs" wrap="nowrap">
            <TextInput
              style={{ flex: 1 }}
              label={t('signIn.code')}
              placeholder={t('signIn.codePlaceholder')}
              inputMode="numeric"
              autoComplete="one-time-code"
              maxLength={LIMITS.codeLength}
              value={code}
              onChange={(e) => {
                setCode(e.currentTarget.value.replace(/\D/g, ''));
                setProblems((p) => ({ ...p, code: undefined }));
                if (submit.error) submit.reset();
              }}
              error={codeError}
              data-testid="signin-code"
            />
            <Button
              mt={25}
              variant="light"
              miw={128}
              onClick={onSend}
              loading={sendCode.isPending}
              disabled={cooldown.left > 0}
              data-testid="signin-send"
              data-countdown={cooldown.left}
            >
              {cooldown.left > 0 ? t('signIn.resendIn', { seconds: String(cooldown.left) }) : t('signIn.sendCode')}
            </Button>
          </Group>
          <Checkbox
            checked={agreed}
            onChange={(e) => {
              setAgreed(e.currentTarget.checked);
              setProblems((p) => ({ ...p, agreement: false }));
            }}
            error={problems.agreement ? errorMessage('AGREEMENT_REQUIRED', locale) : null}
            data-testid="signin-agree"
            label={
              <Trans
                i18nKey="signIn.agree"
                components={{
                  terms: <Anchor href="/#/terms" target="_blank" rel="noopener" inherit />,
                  privacy: <Anchor href="/#/privacy" target="_blank" rel="noopener" inherit />,
                }}
              />
            }
          />
          <Button type="submit" fullWidth loading={submit.isPending} data-testid="signin-submit">
            {t('signIn.submit')}
          </Button>
        </Stack>
      </form>
      <AgreementDialog
        opened={confirming}
        onCancel={() => {
          setConfirming(false);
          setProblems((p) => ({ ...p, agreement: true }));
        }}
        onAgree={() => {
          setConfirming(false);
          setAgreed(true);
          proceed();
        }}
      />
    </Modal>
  );
}
