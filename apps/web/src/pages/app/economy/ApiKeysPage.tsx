import { useState } from 'react';
import { ActionIcon, Badge, Button, Group, Paper, Skeleton, Stack, Table, Text, Tooltip } from '@mantine/core';
import { IconPencil, IconPlus, IconScale, IconTrash } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router-dom';
import type { ApiKey } from '../../../api/economy';
import { EmptyTable } from '../../../components/EmptyTable';
import { WideTable } from '../../../components/WideTable';
import { LoadError } from '../../../components/LoadError';
import { PageHeader } from '../../../components/PageHeader';
import { useApiKeys } from '../../../economy/queries';
import { formatDateTime } from '../../../economy/usage';
import { useLocaleChoice } from '../../../i18n/hooks';
import { formatNumber } from '../../../lib/format';
import { CreateKeyDialog, DeleteKeyDialog, EditKeyDialog } from './KeyDialogs';
import { KeySampleSection } from './KeySample';

type Dialog = { kind: 'create' } | { kind: 'name' | 'limit'; key: ApiKey } | { kind: 'delete'; key: ApiKey } | null;

function KeyRow({ apiKey, onAction }: { apiKey: ApiKey; onAction: (d: Dialog) => void }) {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  // A key whose limit is spent (or was lowered under what it spent) is refused with KEY_LIMIT_REACHED: say so.
  const exhausted = apiKey.limit != null && apiKey.used >= apiKey.limit;
  return (
    <Table.Tr
      data-testid="key-row"
      data-key-id={apiKey.id}
      data-name={apiKey.name}
      data-exhausted={exhausted ? 'true' : undefined}
    >
      <Table.Td fw={600} data-testid="key-row-name">
        {apiKey.name}
      </Table.Td>
      <Table.Td>
        <Text ff="monospace" size="sm" data-testid="key-row-prefix">
          {apiKey.prefix}…
        </Text>
      </Table.Td>
      <Table.Td data-testid="key-row-limit">
        {apiKey.limit == null ? t('apiKeys.noLimit') : formatNumber(apiKey.limit, ui)}
      </Table.Td>
      <Table.Td data-testid="key-row-used">
        <Group gap={6} wrap="nowrap">
          <span>{formatNumber(apiKey.used, ui)}</span>
          {exhausted && (
            <Tooltip label={t('apiKeys.exhaustedHint')} withArrow multiline w={240}>
              <Badge color="red" variant="light" size="sm" data-testid="key-row-exhausted" tabIndex={0}>
                {t('apiKeys.exhausted')}
              </Badge>
            </Tooltip>
          )}
        </Group>
      </Table.Td>
      <Table.Td>{formatDateTime(apiKey.created_at, ui)}</Table.Td>
      <Table.Td data-testid="key-row-last-used">{formatDateTime(apiKey.last_used_at, ui) ?? t('apiKeys.neverUsed')}</Table.Td>
      <Table.Td>
        <Group gap={4} wrap="nowrap">
          <Tooltip label={t('apiKeys.rename')} withArrow>
            <ActionIcon
              variant="subtle"
              color="gray"
              aria-label={`${t('apiKeys.rename')}: ${apiKey.name}`}
              onClick={() => onAction({ kind: 'name', key: apiKey })}
              data-testid="key-rename"
            >
              <IconPencil size={16} />
            </ActionIcon>
          </Tooltip>
          <Tooltip label={t('apiKeys.changeLimit')} withArrow>
            <ActionIcon
              variant="subtle"
              color="gray"
              aria-label={`${t('apiKeys.changeLimit')}: ${apiKey.name}`}
              onClick={() => onAction({ kind: 'limit', key: apiKey })}
              data-testid="key-change-limit"
            >
              <IconScale size={16} />
            </ActionIcon>
          </Tooltip>
          <Tooltip label={t('apiKeys.delete')} withArrow>
            <ActionIcon
              variant="subtle"
              color="red"
              aria-label={`${t('apiKeys.delete')}: ${apiKey.name}`}
              onClick={() => onAction({ kind: 'delete', key: apiKey })}
              data-testid="key-delete"
            >
              <IconTrash size={16} />
            </ActionIcon>
          </Tooltip>
        </Group>
      </Table.Td>
    </Table.Tr>
  );
}

/** The account's API keys: create (the secret shown once), rename, limit, delete; prefix, use and last use. */
export function ApiKeysPage() {
  const { t } = useTranslation();
  const keys = useApiKeys();
  const { data, isPending } = keys;
  // The dashboard's "Create a key" comes here with ?create=1: the dialog opens at once.
  const [params, setParams] = useSearchParams();
  const [dialog, setDialog] = useState<Dialog>(() => (params.get('create') === '1' ? { kind: 'create' } : null));
  const close = () => {
    setDialog(null);
    if (params.has('create')) {
      params.delete('create');
      setParams(params, { replace: true });
    }
  };
  const items = data?.items ?? [];
  const columns = [
    t('apiKeys.colName'),
    t('apiKeys.colKey'),
    t('apiKeys.colLimit'),
    t('apiKeys.colUsed'),
    t('apiKeys.colCreated'),
    t('apiKeys.colLastUsed'),
  ];

  return (
    <Stack data-testid="api-keys-page">
      <PageHeader
        title={t('apiKeys.title')}
        description={t('apiKeys.description')}
        actions={
          <Button leftSection={<IconPlus size={16} />} onClick={() => setDialog({ kind: 'create' })} data-testid="key-create">
            {t('apiKeys.create')}
          </Button>
        }
      />
      {isPending ? (
        <Skeleton h={160} radius="md" />
      ) : keys.isError && !data ? (
        <LoadError error={keys.error} onRetry={() => void keys.refetch()} retrying={keys.isFetching} what="keys" />
      ) : items.length === 0 ? (
        <EmptyTable columns={columns} title={t('apiKeys.emptyTitle')} body={t('apiKeys.emptyBody')} />
      ) : (
        <Paper withBorder radius="md">
          <WideTable minWidth={760}>
            <Table highlightOnHover data-testid="keys-table">
              <Table.Thead>
                <Table.Tr>
                  {[...columns, t('apiKeys.colActions')].map((c) => (
                    <Table.Th key={c}>{c}</Table.Th>
                  ))}
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {items.map((k) => (
                  <KeyRow key={k.id} apiKey={k} onAction={setDialog} />
                ))}
              </Table.Tbody>
            </Table>
          </WideTable>
        </Paper>
      )}
      {!isPending && <KeySampleSection />}
      {dialog?.kind === 'create' && <CreateKeyDialog onClose={close} />}
      {(dialog?.kind === 'name' || dialog?.kind === 'limit') && (
        <EditKeyDialog key={`${dialog.kind}-${dialog.key.id}`} apiKey={dialog.key} mode={dialog.kind} onClose={close} />
      )}
      {dialog?.kind === 'delete' && <DeleteKeyDialog apiKey={dialog.key} onClose={close} />}
    </Stack>
  );
}
