import { useState } from 'react';
import { Button, Group, Modal, Stack, Text, TextInput, Textarea } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useLocaleChoice } from '../../i18n/hooks';
import { formatNumber } from '../../lib/format';
import { notifyError, notifySuccess } from '../../lib/notify';
import { adminAccountsApi, type AdminAccountPage } from '../accounts-api';
import { fill } from '../i18n/texts';
import { ACCOUNTS_TEXTS } from '../accounts-shared';

type Texts = (typeof ACCOUNTS_TEXTS)['en'];
export type Action = 'grant' | 'deduct' | 'disable' | 'enable' | 'end';

/** Grant, deduct, disable, enable or end sessions: each asks for its reason (required) before it is sent. */
export function ActionDialog({
  action,
  account,
  texts,
  onClose,
}: {
  action: Action | null;
  account: AdminAccountPage['account'];
  texts: Texts;
  onClose: () => void;
}) {
  const { ui } = useLocaleChoice();
  const client = useQueryClient();
  const [amount, setAmount] = useState('');
  const [reason, setReason] = useState('');
  const who = account.email ?? account.id;
  const money = action === 'grant' || action === 'deduct';
  const mutation = useMutation({
    mutationFn: async () => {
      const why = reason.trim();
      if (action === 'grant' || action === 'deduct') {
        const n = Number(amount);
        const done = await adminAccountsApi.adjust(account.id, action, n, why);
        return fill(action === 'grant' ? texts.granted : texts.deducted, {
          amount: formatNumber(n, ui),
          balance: formatNumber(done.balance, ui),
        });
      }
      const done = await adminAccountsApi.action(account.id, action === 'end' ? 'sessions/end' : action!, why);
      if (action === 'disable')
        return fill(texts.disabledDone, {
          sessions: done.sessions_ended,
          credits: formatNumber(done.released_credits, ui),
        });
      return action === 'enable' ? texts.enabledDone : fill(texts.endedDone, { sessions: done.sessions_ended });
    },
    onSuccess: (message) => {
      notifySuccess(message);
      void client.invalidateQueries({ queryKey: ['admin', 'account', account.id] });
      void client.invalidateQueries({ queryKey: ['admin', 'accounts'] });
      setAmount('');
      setReason('');
      onClose();
    },
    onError: notifyError,
  });
  if (!action) return null;
  const title = {
    grant: texts.grantTitle,
    deduct: texts.deductTitle,
    disable: texts.disableTitle,
    enable: texts.enableTitle,
    end: texts.endTitle,
  }[action];
  const body = { disable: texts.disableBody, enable: texts.enableBody, end: texts.endBody }[action as 'disable'];
  const n = Number(amount);
  const amountOk =
    !money || (Number.isInteger(n) && n > 0 && n <= 1_000_000_000 && (action !== 'deduct' || n <= account.credits));
  const valid = amountOk && reason.trim().length > 0 && reason.trim().length <= 500;
  return (
    <Modal opened onClose={onClose} title={fill(title, { who })} centered data-testid={`dialog-${action}`}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (valid) mutation.mutate();
        }}
      >
        <Stack gap="sm">
          {body && <Text size="sm">{body}</Text>}
          {money && (
            <TextInput
              label={texts.amountLabel}
              value={amount}
              onChange={(e) => setAmount(e.currentTarget.value.replace(/\D/g, ''))}
              inputMode="numeric"
              required
              description={action === 'deduct' ? fill(texts.deductMax, { max: formatNumber(account.credits, ui) }) : undefined}
              data-testid="action-amount"
            />
          )}
          <Textarea
            label={texts.reasonLabel}
            description={money ? texts.reasonShown : undefined}
            value={reason}
            onChange={(e) => setReason(e.currentTarget.value)}
            maxLength={500}
            autosize
            minRows={2}
            required
            data-testid="action-reason"
          />
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={onClose}>
              {texts.cancel}
            </Button>
            <Button
              type="submit"
              color={action === 'disable' || action === 'deduct' ? 'red' : undefined}
              disabled={!valid}
              loading={mutation.isPending}
              data-testid="action-confirm"
            >
              {texts.confirm}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
