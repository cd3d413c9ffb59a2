import { useState } from 'react';
import { Alert, Button, Group, Modal, Stack, Text, TextInput } from '@mantine/core';
import { IconAlertTriangle, IconCoin } from '@tabler/icons-react';
import { useMutation } from '@tanstack/react-query';
import { useNavigate } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { LIMITS } from '@polyvox/contracts';
import { describeError } from '../../../api/errors';
import { useAccount } from '../../../auth/hooks';
import { ME_KEY } from '../../../auth/session-controller';
import { MY_VOICES_KEY, PREVIEWS_KEY, saveVoice, type PreviewCreated, type PreviewType } from '../../../design/api';
import { activationFee } from '../../../design/fee';
import { nameFromPrompt } from '../../../design/rules';
import { useLocaleChoice } from '../../../i18n/hooks';
import { formatNumber } from '../../../lib/format';
import { notifySuccess } from '../../../lib/notify';
import { queryClient } from '../../../lib/query-client';
import { useTtsConfig } from '../../../speech/useTtsConfig';

export interface ActivationTarget {
  /** A version just made, or one of the history (which says what prompt made it). */
  preview: PreviewCreated & { prompt?: string | null };
  type: Exclude<PreviewType, 'mix'>;
  name: string;
}

interface Props {
  target: ActivationTarget | null;
  onClose: () => void;
}

/**
 * Activation behind a confirmation: the fee (from the server), the balance, and the warning that
 * the prompt or sample is locked afterwards. The voice then lands in my voices.
 */
export function ActivateDialog({ target, onClose }: Props) {
  const { t } = useTranslation();
  return (
    <Modal opened={!!target} onClose={onClose} title={t('design.activateTitle')} centered size="md">
      {target && <ActivateBody key={target.preview.id} target={target} onClose={onClose} />}
    </Modal>
  );
}

function ActivateBody({ target, onClose }: { target: ActivationTarget; onClose: () => void }) {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  const navigate = useNavigate();
  const config = useTtsConfig().data;
  const { account } = useAccount();
  // The name typed in the form, or (none, as after a reload) one from the version's prompt: never an empty field to fill.
  const [name, setName] = useState(
    () =>
      target.name || nameFromPrompt(target.preview.prompt, t('design.defaultName', { version: String(target.preview.version) })),
  );
  const [nameError, setNameError] = useState<string | null>(null);
  const fee = activationFee(target.type, target.preview, config);
  const balance = account?.vip.credits;

  const activate = useMutation({
    mutationFn: () => saveVoice({ type: target.type, name: name.trim(), preview_id: target.preview.id }),
    meta: { silent: true },
    onSuccess: (voice) => {
      void queryClient.invalidateQueries({ queryKey: ME_KEY });
      void queryClient.invalidateQueries({ queryKey: [MY_VOICES_KEY] });
      void queryClient.invalidateQueries({ queryKey: [PREVIEWS_KEY] });
      notifySuccess(t('design.activated', { name: voice.name }));
      onClose();
      navigate(`/app/my-voices?voice=${encodeURIComponent(voice.id)}`);
    },
  });

  const confirm = () => {
    if (!name.trim()) {
      setNameError(t('design.nameRequired'));
      return;
    }
    activate.mutate();
  };

  const short = fee !== null && balance !== undefined && balance < fee;
  return (
    <Stack data-testid="activate-dialog" data-fee={fee ?? ''}>
      <TextInput
        label={t('design.name')}
        value={name}
        maxLength={LIMITS.nameMaxLength}
        onChange={(e) => {
          setName(e.currentTarget.value);
          setNameError(null);
        }}
        error={nameError}
        withAsterisk
        data-testid="activate-name"
      />
      <Alert color="violet" variant="light" icon={<IconCoin size={18} />} data-testid="activate-cost">
        <Text size="sm">
          {fee === null ? t('design.activateCostUnknown') : t('design.activateCost', { credits: formatNumber(fee, ui) })}
        </Text>
        {balance !== undefined && (
          <Text size="sm" c="dimmed" mt={4} data-testid="activate-balance" data-credits={balance}>
            {t('design.balance', { credits: formatNumber(balance, ui) })}
          </Text>
        )}
      </Alert>
      <Text size="sm" c="dimmed">
        {target.type === 'clone' ? t('design.lockedClone') : t('design.lockedPrompt')}
      </Text>
      {short && (
        <Alert color="orange" variant="light" icon={<IconAlertTriangle size={18} />} data-testid="activate-short">
          {t('design.notEnough')}
        </Alert>
      )}
      {activate.isError && (
        <Alert color="red" variant="light" icon={<IconAlertTriangle size={18} />} data-testid="activate-error">
          {describeError(activate.error, ui, t('errors.network'))}
        </Alert>
      )}
      <Group justify="flex-end">
        <Button variant="default" onClick={onClose} data-testid="activate-cancel">
          {t('common.cancel')}
        </Button>
        <Button onClick={confirm} loading={activate.isPending} data-testid="activate-confirm">
          {fee === null ? t('design.activate') : t('design.activateFor', { credits: formatNumber(fee, ui) })}
        </Button>
      </Group>
    </Stack>
  );
}
