import { useState, type FormEvent } from 'react';
import {
  Button,
  Center,
  Checkbox,
  Code,
  Divider,
  Group,
  Paper,
  SimpleGrid,
  Stack,
  Tabs,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { browserSupportsWebAuthn, startAuthentication, startRegistration } from '@simplewebauthn/browser';
import type { FactorStatus, TotpEnrolment } from '@polyvox/contracts';
import { notifyError, notifySuccess } from '../lib/notify';
import { QrCode } from '../economy/QrCode';
import { adminApi, STATUS_KEY } from './api';

function usePassed() {
  const { t } = useTranslation('admin');
  const queryClient = useQueryClient();
  return async () => {
    notifySuccess(t('factor.passed'));
    await queryClient.invalidateQueries({ queryKey: STATUS_KEY });
  };
}

/** A code field and its button: TOTP (six digits) or a recovery code. */
function CodeForm({
  label,
  submit,
  testId,
  numeric,
}: {
  label: string;
  submit: (code: string) => Promise<unknown>;
  testId: string;
  numeric?: boolean;
}) {
  const { t } = useTranslation('admin');
  const [code, setCode] = useState('');
  const passed = usePassed();
  const mutation = useMutation({ mutationFn: submit, onSuccess: passed, onError: notifyError });
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (code.trim()) mutation.mutate(code.trim());
  };
  return (
    <form onSubmit={onSubmit}>
      <Group align="flex-end" wrap="wrap">
        <TextInput
          label={label}
          value={code}
          onChange={(e) => setCode(e.currentTarget.value)}
          autoComplete="one-time-code"
          inputMode={numeric ? 'numeric' : 'text'}
          maxLength={numeric ? 6 : 32}
          data-testid={`${testId}-input`}
          style={{ flex: '1 1 12rem' }}
        />
        <Button type="submit" loading={mutation.isPending} data-testid={`${testId}-submit`}>
          {t('factor.verify')}
        </Button>
      </Group>
    </form>
  );
}

/**
 * Creates a passkey (the first factor, or `add`: another one for an operator past the second factor) or signs with one.
 */
export function PasskeyButton({ mode }: { mode: 'create' | 'add' | 'use' }) {
  const { t } = useTranslation('admin');
  const queryClient = useQueryClient();
  const passed = usePassed();
  const mutation = useMutation({
    mutationFn: async () => {
      if (mode !== 'use') {
        const options = await adminApi.passkeyRegisterOptions();
        return adminApi.passkeyRegister(await startRegistration({ optionsJSON: options as never }));
      }
      const options = await adminApi.passkeyAuthOptions();
      return adminApi.passkeyAuthenticate(await startAuthentication({ optionsJSON: options as never }));
    },
    onSuccess: async () => {
      if (mode !== 'add') return passed();
      notifySuccess(t('factor.passkeyAdded'));
      await queryClient.invalidateQueries({ queryKey: STATUS_KEY });
    },
    onError: notifyError,
  });
  if (!browserSupportsWebAuthn()) return <Text c="dimmed">{t('factor.passkeyUnsupported')}</Text>;
  const label = { create: t('factor.passkeyCreate'), add: t('factor.passkeyAdd'), use: t('factor.passkeyUse') }[mode];
  return (
    <Button
      variant={mode === 'use' ? 'filled' : 'default'}
      loading={mutation.isPending}
      onClick={() => mutation.mutate()}
      data-testid={`passkey-${mode}`}
    >
      {label}
    </Button>
  );
}

/** The first time: an authenticator app (QR code, secret, ten recovery codes shown once, a first code) or a passkey. */
function Enrol() {
  const { t } = useTranslation('admin');
  const [enrolment, setEnrolment] = useState<TotpEnrolment | null>(null);
  const [kept, setKept] = useState(false);
  const start = useMutation({ mutationFn: adminApi.enrolTotp, onSuccess: setEnrolment, onError: notifyError });
  return (
    <Stack>
      <Title order={1} size="h3">
        {t('factor.enrolTitle')}
      </Title>
      <Text>{t('factor.enrolBody')}</Text>
      {!enrolment ? (
        <Group>
          <Button loading={start.isPending} onClick={() => start.mutate()} data-testid="totp-start">
            {t('factor.start')}
          </Button>
          <PasskeyButton mode="create" />
        </Group>
      ) : (
        <Stack data-testid="totp-enrolment">
          <Text>{t('factor.scan')}</Text>
          <Center>
            <QrCode text={enrolment.otpauth_uri} label={t('factor.qrLabel')} size={180} />
          </Center>
          <Text size="sm">
            {t('factor.secret')}: <Code data-testid="totp-secret">{enrolment.secret}</Code>
          </Text>
          <Divider />
          <Title order={2} size="h5">
            {t('factor.recoveryTitle')}
          </Title>
          <Text size="sm">{t('factor.recoveryBody')}</Text>
          <SimpleGrid cols={2} spacing="xs" data-testid="recovery-codes">
            {enrolment.recovery_codes.map((c) => (
              <Code key={c} data-testid="recovery-code">
                {c}
              </Code>
            ))}
          </SimpleGrid>
          <Checkbox
            checked={kept}
            onChange={(e) => setKept(e.currentTarget.checked)}
            label={t('factor.recoverySaved')}
            data-testid="recovery-kept"
          />
          {kept && <CodeForm label={t('factor.code')} submit={adminApi.confirmTotp} testId="totp-confirm" numeric />}
        </Stack>
      )}
    </Stack>
  );
}

/** Later: a TOTP code, a passkey or a recovery code. */
function Verify({ status }: { status: FactorStatus }) {
  const { t } = useTranslation('admin');
  const first = status.totp ? 'totp' : 'passkey';
  return (
    <Stack>
      <Title order={1} size="h3">
        {t('factor.verifyTitle')}
      </Title>
      <Text>{t('factor.verifyBody')}</Text>
      <Tabs defaultValue={first}>
        <Tabs.List>
          {status.totp && (
            <Tabs.Tab value="totp" data-testid="tab-totp">
              {t('factor.tabTotp')}
            </Tabs.Tab>
          )}
          {status.passkeys > 0 && (
            <Tabs.Tab value="passkey" data-testid="tab-passkey">
              {t('factor.tabPasskey')}
            </Tabs.Tab>
          )}
          {status.recovery_codes_left > 0 && (
            <Tabs.Tab value="recovery" data-testid="tab-recovery">
              {t('factor.tabRecovery')}
            </Tabs.Tab>
          )}
        </Tabs.List>
        <Tabs.Panel value="totp" pt="md">
          <CodeForm label={t('factor.code')} submit={adminApi.verifyTotp} testId="totp-verify" numeric />
        </Tabs.Panel>
        <Tabs.Panel value="passkey" pt="md">
          <PasskeyButton mode="use" />
        </Tabs.Panel>
        <Tabs.Panel value="recovery" pt="md">
          <Stack gap="xs">
            <CodeForm label={t('factor.recoveryCode')} submit={adminApi.recovery} testId="recovery" />
            <Text size="sm" c="dimmed">
              {t('factor.recoveryLeft', { count: status.recovery_codes_left })}
            </Text>
          </Stack>
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}

/** Before any operator page: the second factor, set up the first time. */
export function SecondFactorPage({ status }: { status: FactorStatus }) {
  const enrolled = status.totp || status.passkeys > 0;
  return (
    <Center mih="100vh" p="md" bg="var(--mantine-color-gray-0)">
      <Paper withBorder shadow="sm" p="lg" radius="md" w="100%" maw={520} data-testid="admin-second-factor">
        {enrolled ? <Verify status={status} /> : <Enrol />}
      </Paper>
    </Center>
  );
}
