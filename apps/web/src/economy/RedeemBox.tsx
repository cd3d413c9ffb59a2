import { useState, type FormEvent } from 'react';
import { Alert, Button, Card, Group, Text, TextInput, Title } from '@mantine/core';
import { IconTicket } from '@tabler/icons-react';
import { useMutation } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { redeemCode, type Redemption } from '../api/economy';
import { describeError } from '../api/errors';
import { ME_KEY } from '../auth/session-controller';
import { useLocaleChoice } from '../i18n/hooks';
import { formatNumber } from '../lib/format';
import { queryClient } from '../lib/query-client';
import { ECONOMY_KEY } from './queries';

/**
 * "Redeem a code" on the pricing page: the code's credits (and plan) join the account; the answer, or why not
 * (unknown, used up, expired or revoked; too many tries), is shown in place in the reader's language.
 */
export function RedeemBox({ onSignIn }: { onSignIn?: (() => void) | undefined }) {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  const [code, setCode] = useState('');
  const [done, setDone] = useState<Redemption | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const redeem = useMutation({
    mutationFn: (typed: string) => redeemCode(typed),
    meta: { silent: true },
    onMutate: () => {
      setProblem(null);
      setDone(null);
    },
    onSuccess: (result) => {
      setDone(result);
      setCode('');
      void queryClient.invalidateQueries({ queryKey: ME_KEY });
      void queryClient.invalidateQueries({ queryKey: [ECONOMY_KEY] });
    },
    onError: (error) => setProblem(describeError(error, ui, t('errors.network'))),
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    if (onSignIn) return onSignIn();
    if (code.trim()) redeem.mutate(code.trim());
  }

  return (
    <Card withBorder radius="md" p="lg" mt="xl" data-testid="redeem-box">
      <Group gap="xs" mb="xs">
        <IconTicket size={20} aria-hidden />
        <Title order={2} size="h4">
          {t('redeem.title')}
        </Title>
      </Group>
      <Text c="dimmed" size="sm" mb="sm">
        {t('redeem.body')}
      </Text>
      <form onSubmit={submit}>
        <Group align="flex-end" wrap="wrap" gap="sm">
          <TextInput
            style={{ flex: '1 1 16rem' }}
            label={t('redeem.label')}
            placeholder="XXXX-XXXX-XXXX-XXXX"
            value={code}
            onChange={(e) => setCode(e.currentTarget.value)}
            maxLength={64}
            autoComplete="off"
            spellCheck={false}
            data-testid="redeem-input"
          />
          <Button type="submit" loading={redeem.isPending} disabled={!onSignIn && !code.trim()} data-testid="redeem-submit">
            {onSignIn ? t('redeem.signIn') : t('redeem.submit')}
          </Button>
        </Group>
      </form>
      {done && (
        <Alert color="teal" mt="md" role="status" data-testid="redeem-result">
          {done.plan
            ? t('redeem.donePlan', {
                plan: t(`plans.${done.plan}`),
                credits: formatNumber(done.credits, ui),
                balance: formatNumber(done.balance, ui),
              })
            : t('redeem.done', { credits: formatNumber(done.credits, ui), balance: formatNumber(done.balance, ui) })}
        </Alert>
      )}
      {problem && (
        <Alert color="red" mt="md" role="alert" data-testid="redeem-error">
          {problem}
        </Alert>
      )}
    </Card>
  );
}
