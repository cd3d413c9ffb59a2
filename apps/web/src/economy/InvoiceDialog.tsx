import { useState } from 'react';
import { Alert, Badge, Button, Group, Modal, SegmentedControl, Skeleton, Stack, Text, TextInput } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { fetchInvoice, fetchInvoiceFile, requestInvoice, type Invoice, type InvoiceType } from '../api/economy';
import { notifyError, notifySuccess } from '../lib/notify';
import { saveBlob } from './download';
import { ECONOMY_KEY } from './queries';

/** 15 to 20 letters and digits: the unified social credit code (18) or an older taxpayer number. */
const TAX_NUMBER = /^[0-9A-Z]{15,20}$/;
const STATUS_COLOR = { requested: 'yellow', issued: 'teal', rejected: 'red' } as const;

function InvoiceForm({ orderId, previous, onDone }: { orderId: string; previous: Invoice | null; onDone: () => void }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const [type, setType] = useState<InvoiceType>(previous?.type ?? 'normal');
  const [title, setTitle] = useState(previous?.title ?? '');
  const [tax, setTax] = useState(previous?.tax_number ?? '');
  const [email, setEmail] = useState(previous?.email ?? '');
  const [tried, setTried] = useState(false);
  const taxValue = tax.trim().toUpperCase();
  const errors = {
    title: title.trim() ? null : t('invoice.titleRequired'),
    tax:
      type === 'special' && !taxValue
        ? t('invoice.taxRequired')
        : taxValue && !TAX_NUMBER.test(taxValue)
          ? t('invoice.taxFormat')
          : null,
    email: /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email.trim()) ? null : t('invoice.emailFormat'),
  };
  const ask = useMutation({
    mutationFn: () =>
      requestInvoice(orderId, {
        type,
        title: title.trim(),
        email: email.trim(),
        ...(taxValue ? { tax_number: taxValue } : {}),
      }),
    onSuccess: async () => {
      notifySuccess(t('invoice.requested'));
      await client.invalidateQueries({ queryKey: [ECONOMY_KEY] });
      onDone();
    },
    onError: notifyError,
  });
  return (
    <form
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        setTried(true);
        if (!errors.title && !errors.tax && !errors.email) ask.mutate();
      }}
    >
      <Stack gap="sm">
        <SegmentedControl
          value={type}
          onChange={(v) => setType(v as InvoiceType)}
          data={[
            { value: 'normal', label: t('invoice.typeNormal') },
            { value: 'special', label: t('invoice.typeSpecial') },
          ]}
          data-testid="invoice-type"
          fullWidth
        />
        <TextInput
          label={t('invoice.title')}
          description={t('invoice.titleHint')}
          value={title}
          onChange={(e) => setTitle(e.currentTarget.value)}
          maxLength={100}
          required
          error={tried && errors.title}
          data-testid="invoice-title"
        />
        <TextInput
          label={t('invoice.taxNumber')}
          description={t('invoice.taxHint')}
          value={tax}
          onChange={(e) => setTax(e.currentTarget.value)}
          maxLength={20}
          required={type === 'special'}
          error={tried && errors.tax}
          data-testid="invoice-tax"
        />
        <TextInput
          label={t('invoice.email')}
          type="email"
          value={email}
          onChange={(e) => setEmail(e.currentTarget.value)}
          required
          error={tried && errors.email}
          data-testid="invoice-email"
        />
        <Group justify="flex-end">
          <Button type="submit" loading={ask.isPending} data-testid="invoice-submit">
            {t('invoice.submit')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** The 发票 of one paid order: its request and state, the form to ask (again), the issued file. */
export function InvoiceDialog({ orderId, opened, onClose }: { orderId: string; opened: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const invoice = useQuery({
    queryKey: [ECONOMY_KEY, 'invoice', orderId],
    queryFn: ({ signal }) => fetchInvoice(orderId, signal),
    enabled: opened,
  });
  const [editing, setEditing] = useState(false);
  const download = useMutation({
    mutationFn: () => fetchInvoiceFile(orderId),
    onSuccess: (blob) => saveBlob(blob, `invoice-${orderId}.pdf`),
    onError: notifyError,
  });
  const current = invoice.data ?? null;
  const showForm = !invoice.isPending && (!current || current.status === 'rejected' || editing);
  return (
    <Modal opened={opened} onClose={onClose} title={t('invoice.dialogTitle')} data-testid="invoice-dialog" size="md">
      {invoice.isPending ? (
        <Skeleton h={160} />
      ) : (
        <Stack>
          {current && (
            <Stack gap={6} data-testid="invoice-state" data-status={current.status}>
              <Group gap="xs">
                <Badge color={STATUS_COLOR[current.status]} variant="light">
                  {t(`invoice.status.${current.status}`)}
                </Badge>
                <Text size="sm">{current.title}</Text>
              </Group>
              {current.status === 'requested' && <Text size="sm">{t('invoice.waiting', { email: current.email })}</Text>}
              {current.status === 'rejected' && (
                <Alert color="red" title={t('invoice.rejectedTitle')}>
                  {current.note}
                </Alert>
              )}
              {current.status === 'issued' && (
                <Group>
                  {current.invoice_number && <Text size="sm">{t('invoice.number', { number: current.invoice_number })}</Text>}
                  <Button size="xs" onClick={() => download.mutate()} loading={download.isPending} data-testid="invoice-download">
                    {t('invoice.download')}
                  </Button>
                </Group>
              )}
              {current.status === 'requested' && !editing && (
                <Group justify="flex-end">
                  <Button size="xs" variant="light" onClick={() => setEditing(true)} data-testid="invoice-edit">
                    {t('invoice.edit')}
                  </Button>
                </Group>
              )}
            </Stack>
          )}
          {showForm && (
            <InvoiceForm
              orderId={orderId}
              previous={current}
              onDone={() => {
                setEditing(false);
                void invoice.refetch();
              }}
            />
          )}
        </Stack>
      )}
    </Modal>
  );
}
