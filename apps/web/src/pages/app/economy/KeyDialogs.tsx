import { useState } from 'react';
import { Alert, Button, Group, Modal, Stack, Text, TextInput } from '@mantine/core';
import { IconAlertTriangle, IconCheck, IconCopy } from '@tabler/icons-react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { createApiKey, deleteApiKey, updateApiKey, type ApiKey, type CreatedKey } from '../../../api/economy';
import { copyText } from '../../../economy/clipboard';
import { cleanName, parseLimit } from '../../../economy/keys';
import { ECONOMY_KEY } from '../../../economy/queries';
import { useLocaleChoice } from '../../../i18n/hooks';
import { formatNumber } from '../../../lib/format';
import { notifySuccess } from '../../../lib/notify';
import { KeySample } from './KeySample';

function useRefreshKeys() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: [ECONOMY_KEY, 'keys'] });
}

/** Name and limit fields shared by the create and edit dialogs; errors are the console's own, before any request. */
function useKeyFields(initial: { name?: string; limit?: number | null }) {
  const { t } = useTranslation();
  const [name, setName] = useState(initial.name ?? '');
  const [limit, setLimit] = useState(initial.limit == null ? '' : String(initial.limit));
  const [nameError, setNameError] = useState<string | null>(null);
  const [limitError, setLimitError] = useState<string | null>(null);
  const read = () => {
    const cleanedName = cleanName(name);
    const parsed = parseLimit(limit);
    setNameError(cleanedName ? null : t('apiKeys.nameRequired'));
    setLimitError(parsed === 'invalid' ? t('apiKeys.limitInvalid') : null);
    return { name: cleanedName, limit: parsed };
  };
  const nameInput = (
    <TextInput
      label={t('apiKeys.name')}
      placeholder={t('apiKeys.namePlaceholder')}
      value={name}
      onChange={(e) => setName(e.currentTarget.value)}
      error={nameError}
      maxLength={100}
      data-autofocus
      data-testid="key-name"
    />
  );
  const limitInput = (
    <TextInput
      label={t('apiKeys.limit')}
      description={t('apiKeys.limitHint')}
      placeholder={t('apiKeys.noLimit')}
      inputMode="numeric"
      value={limit}
      onChange={(e) => setLimit(e.currentTarget.value)}
      error={limitError}
      data-testid="key-limit"
    />
  );
  return { read, nameInput, limitInput };
}

/** The secret, shown this once, with a copy button that says so when the browser refuses to copy. */
function CreatedKeyView({ created, onDone, onCopied }: { created: CreatedKey; onDone: () => void; onCopied: () => void }) {
  const { t } = useTranslation();
  const [copy, setCopy] = useState<'idle' | 'copied' | 'denied'>('idle');
  return (
    <Stack gap="sm" data-testid="key-created">
      <Alert color="yellow" icon={<IconAlertTriangle size={18} />}>
        {t('apiKeys.createdBody')}
      </Alert>
      <Group gap="xs" wrap="nowrap" align="flex-end">
        <TextInput
          readOnly
          aria-label={t('apiKeys.secretLabel')}
          value={created.key}
          onFocus={(e) => e.currentTarget.select()}
          style={{ flex: 1 }}
          styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
          data-testid="key-secret"
        />
        <Button
          leftSection={copy === 'copied' ? <IconCheck size={16} /> : <IconCopy size={16} />}
          color={copy === 'copied' ? 'teal' : undefined}
          onClick={() =>
            void copyText(created.key).then((outcome) => {
              setCopy(outcome);
              if (outcome === 'copied') onCopied();
            })
          }
          data-testid="key-copy"
          data-state={copy}
        >
          {copy === 'copied' ? t('common.copied') : t('apiKeys.copy')}
        </Button>
      </Group>
      {copy === 'copied' && (
        <Text size="sm" c="teal.9" data-testid="key-copied">
          {t('apiKeys.copied')}
        </Text>
      )}
      {copy === 'denied' && (
        <Alert color="red" data-testid="key-copy-denied">
          {t('apiKeys.clipboardDenied')}
        </Alert>
      )}
      <Text size="sm" c="dimmed">
        {t('apiKeys.usageExample')}
      </Text>
      <KeySample secret={created.key} />
      <Group justify="flex-end">
        <Button onClick={onDone} data-testid="key-done">
          {t('apiKeys.savedIt')}
        </Button>
      </Group>
    </Stack>
  );
}

export function CreateKeyDialog({ onClose }: { onClose: () => void }) {
  const { t } = useTranslation();
  const refresh = useRefreshKeys();
  const fields = useKeyFields({});
  const [created, setCreated] = useState<CreatedKey | null>(null);
  // Escape or the close button, once the secret is shown and not copied: ask first, it is never shown again.
  const [warning, setWarning] = useState(false);
  const [copied, setCopied] = useState(false);
  const create = useMutation({
    mutationFn: ({ name, limit }: { name: string; limit: number | null }) => createApiKey(name, limit),
    onSuccess: (key) => {
      setCreated(key);
      void refresh();
    },
  });
  const submit = () => {
    const { name, limit } = fields.read();
    if (!name || limit === 'invalid') return;
    create.mutate({ name, limit });
  };
  return (
    <Modal
      opened
      onClose={() => (created && !copied && !warning ? setWarning(true) : onClose())}
      title={created ? t('apiKeys.createdTitle') : t('apiKeys.createTitle')}
      centered
      size="lg"
      // The secret is never shown again: closing by a stray click outside would lose it.
      closeOnClickOutside={!created}
      data-testid="key-dialog"
    >
      {created && warning && (
        <Alert
          color="orange"
          variant="light"
          mb="md"
          data-testid="key-close-warning"
          role="alertdialog"
          aria-label={t('apiKeys.closeWarningTitle')}
        >
          <Text size="sm" mb="sm">
            {t('apiKeys.closeWarning')}
          </Text>
          <Group gap="xs">
            <Button size="xs" color="orange" onClick={onClose} data-testid="key-close-anyway">
              {t('apiKeys.closeAnyway')}
            </Button>
            <Button size="xs" variant="default" onClick={() => setWarning(false)} data-testid="key-keep-open">
              {t('apiKeys.keepOpen')}
            </Button>
          </Group>
        </Alert>
      )}
      {created ? (
        <CreatedKeyView created={created} onDone={onClose} onCopied={() => setCopied(true)} />
      ) : (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            submit();
          }}
        >
          <Stack gap="sm">
            {fields.nameInput}
            {fields.limitInput}
            <Group justify="flex-end" mt="sm">
              <Button variant="default" onClick={onClose}>
                {t('common.cancel')}
              </Button>
              <Button type="submit" loading={create.isPending} data-testid="key-create-submit">
                {t('apiKeys.createSubmit')}
              </Button>
            </Group>
          </Stack>
        </form>
      )}
    </Modal>
  );
}

/** Rename (`mode: 'name'`) or change the credit limit (`mode: 'limit'`) of one key. */
export function EditKeyDialog({ apiKey, mode, onClose }: { apiKey: ApiKey; mode: 'name' | 'limit'; onClose: () => void }) {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  const refresh = useRefreshKeys();
  const fields = useKeyFields({ name: apiKey.name, limit: apiKey.limit });
  // A limit at or under what the key has spent stops it at once: said before saving, saved on a second press.
  const [below, setBelow] = useState<number | null>(null);
  const save = useMutation({
    mutationFn: (patch: { id: string; name?: string; limit?: number | null }) => updateApiKey(patch),
    onSuccess: () => {
      notifySuccess(t('apiKeys.saved'));
      void refresh();
      onClose();
    },
  });
  const submit = () => {
    const { name, limit } = fields.read();
    if (mode === 'name' && name) save.mutate({ id: apiKey.id, name });
    if (mode !== 'limit' || limit === 'invalid') return;
    if (limit !== null && limit <= apiKey.used && below !== limit) {
      setBelow(limit);
      return;
    }
    save.mutate({ id: apiKey.id, limit });
  };
  return (
    <Modal
      opened
      onClose={onClose}
      title={mode === 'name' ? t('apiKeys.renameTitle') : t('apiKeys.limitTitle')}
      centered
      data-testid="key-edit-dialog"
    >
      <form
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <Stack gap="sm">
          {mode === 'name' ? fields.nameInput : fields.limitInput}
          {mode === 'limit' && below !== null && (
            <Alert color="orange" icon={<IconAlertTriangle size={18} />} data-testid="key-limit-below-used">
              {t('apiKeys.limitBelowUsed', { used: formatNumber(apiKey.used, ui), limit: formatNumber(below, ui) })}
            </Alert>
          )}
          <Group justify="flex-end" mt="sm">
            <Button variant="default" onClick={onClose}>
              {t('common.cancel')}
            </Button>
            <Button type="submit" loading={save.isPending} data-testid="key-edit-submit">
              {t('common.save')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

export function DeleteKeyDialog({ apiKey, onClose }: { apiKey: ApiKey; onClose: () => void }) {
  const { t } = useTranslation();
  const refresh = useRefreshKeys();
  const remove = useMutation({
    mutationFn: () => deleteApiKey(apiKey.id),
    onSuccess: () => {
      notifySuccess(t('apiKeys.deleted'));
      void refresh();
      onClose();
    },
  });
  return (
    <Modal opened onClose={onClose} title={t('apiKeys.deleteTitle')} centered data-testid="key-delete-dialog">
      <Stack gap="md">
        <Text>{t('apiKeys.deleteBody', { name: apiKey.name })}</Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            {t('common.cancel')}
          </Button>
          <Button color="red" loading={remove.isPending} onClick={() => remove.mutate()} data-testid="key-delete-confirm">
            {t('apiKeys.deleteConfirm')}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
