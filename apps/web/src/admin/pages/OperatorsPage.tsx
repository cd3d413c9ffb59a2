import { useState, type FormEvent } from 'react';
import { Badge, Button, Group, Modal, Paper, Select, Stack, Text, TextInput } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { DataTable } from 'mantine-datatable';
import { useTranslation } from 'react-i18next';
import { OPERATOR_ROLES, type Operator, type OperatorRole } from '@polyvox/contracts';
import { PageHeader } from '../../components/PageHeader';
import { LoadError } from '../../components/LoadError';
import { formatDate } from '../../lib/format';
import { notifyError, notifySuccess } from '../../lib/notify';
import { useLocaleChoice } from '../../i18n/hooks';
import { adminApi } from '../api';

const LIST_KEY = ['admin', 'operators'] as const;

/** Operators (owner only): who holds which role; add by email, change a role, remove. Each change is audited. */
export default function OperatorsPage() {
  const { t } = useTranslation('admin');
  const { ui } = useLocaleChoice();
  const queryClient = useQueryClient();
  const list = useQuery({ queryKey: LIST_KEY, queryFn: adminApi.operators });
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<OperatorRole>('support');
  const [reason, setReason] = useState('');
  const [removing, setRemoving] = useState<Operator | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: LIST_KEY });
  const roles = OPERATOR_ROLES.map((r) => ({ value: r, label: t(`role.${r}`) }));

  const add = useMutation({
    mutationFn: () => adminApi.addOperator({ email: email.trim(), role, ...(reason.trim() ? { reason: reason.trim() } : {}) }),
    onSuccess: async (made) => {
      notifySuccess(t('operators.added', { email: made.email }));
      setEmail('');
      setReason('');
      await refresh();
    },
    onError: notifyError,
  });
  const change = useMutation({
    mutationFn: (v: { accountId: string; role: OperatorRole }) => adminApi.changeRole(v.accountId, v.role),
    onSuccess: async () => {
      notifySuccess(t('operators.changed'));
      await refresh();
    },
    onError: notifyError,
  });
  const remove = useMutation({
    mutationFn: (accountId: string) => adminApi.removeOperator(accountId),
    onSuccess: async () => {
      notifySuccess(t('operators.removed'));
      setRemoving(null);
      await refresh();
    },
    onError: notifyError,
  });
  const onAdd = (e: FormEvent) => {
    e.preventDefault();
    if (email.trim()) add.mutate();
  };

  return (
    <>
      <PageHeader title={t('operators.title')} description={t('operators.description')} />
      <Stack>
        <Paper withBorder p="md" radius="md">
          <form onSubmit={onAdd} aria-label={t('operators.add')}>
            <Group align="flex-end" wrap="wrap">
              <TextInput
                label={t('operators.email')}
                type="email"
                required
                value={email}
                onChange={(e) => setEmail(e.currentTarget.value)}
                data-testid="operator-email"
                style={{ flex: '2 1 14rem' }}
              />
              <Select
                label={t('operators.role')}
                data={roles}
                value={role}
                onChange={(v) => v && setRole(v as OperatorRole)}
                allowDeselect={false}
                data-testid="operator-role"
                style={{ flex: '1 1 8rem' }}
              />
              <TextInput
                label={t('operators.reason')}
                value={reason}
                onChange={(e) => setReason(e.currentTarget.value)}
                maxLength={500}
                style={{ flex: '2 1 14rem' }}
              />
              <Button type="submit" loading={add.isPending} data-testid="operator-add">
                {t('operators.submit')}
              </Button>
            </Group>
          </form>
        </Paper>
        {list.isError ? (
          <LoadError error={list.error} onRetry={() => void list.refetch()} what="operators" />
        ) : (
          <DataTable<Operator>
            withTableBorder
            borderRadius="md"
            striped
            minHeight={160}
            fetching={list.isFetching}
            records={list.data?.items ?? []}
            idAccessor="account_id"
            noRecordsText={t('operators.empty')}
            data-testid="operators-table"
            columns={[
              {
                accessor: 'email',
                title: t('operators.columns.email'),
                render: (o) => (
                  <Text size="sm" data-testid="operator-row-email">
                    {o.email ?? o.account_id}
                  </Text>
                ),
              },
              {
                accessor: 'role',
                title: t('operators.columns.role'),
                render: (o) => (
                  <Select
                    aria-label={`${t('operators.columns.role')}: ${o.email ?? o.account_id}`}
                    data={roles}
                    value={o.role}
                    allowDeselect={false}
                    size="xs"
                    w={130}
                    onChange={(v) => v && v !== o.role && change.mutate({ accountId: o.account_id, role: v as OperatorRole })}
                    data-testid={`operator-role-${o.account_id}`}
                  />
                ),
              },
              {
                accessor: 'totp',
                title: t('operators.columns.factor'),
                render: (o) =>
                  o.totp || o.passkeys ? (
                    <Group gap={4}>
                      {o.totp && <Badge variant="light">{t('operators.factorTotp')}</Badge>}
                      {o.passkeys > 0 && <Badge variant="light">{t('operators.factorPasskeys', { count: o.passkeys })}</Badge>}
                    </Group>
                  ) : (
                    <Text size="sm" c="dimmed">
                      {t('operators.factorNone')}
                    </Text>
                  ),
              },
              { accessor: 'created_at', title: t('operators.columns.since'), render: (o) => formatDate(o.created_at, ui) },
              {
                accessor: 'actions',
                title: t('operators.columns.actions'),
                textAlign: 'right',
                render: (o) => (
                  <Button
                    size="xs"
                    variant="subtle"
                    color="red"
                    onClick={() => setRemoving(o)}
                    data-testid={`operator-remove-${o.account_id}`}
                  >
                    {t('operators.remove')}
                  </Button>
                ),
              },
            ]}
          />
        )}
      </Stack>
      <Modal opened={removing !== null} onClose={() => setRemoving(null)} title={t('operators.remove')} centered>
        <Stack>
          <Text>{t('operators.removeConfirm', { email: removing?.email ?? removing?.account_id ?? '' })}</Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setRemoving(null)}>
              {t('operators.cancel')}
            </Button>
            <Button
              color="red"
              loading={remove.isPending}
              onClick={() => removing && remove.mutate(removing.account_id)}
              data-testid="operator-remove-confirm"
            >
              {t('operators.remove')}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
