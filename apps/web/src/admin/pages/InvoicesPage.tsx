import { useState } from 'react';
import { Badge, Button, FileInput, Group, Modal, NativeSelect, Stack, Text, Textarea, TextInput } from '@mantine/core';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { DataTable } from 'mantine-datatable';
import { useSearchParams } from 'react-router-dom';
import { INVOICE_STATUSES, type AdminInvoice } from '@polyvox/contracts';
import { PageHeader } from '../../components/PageHeader';
import { LoadError } from '../../components/LoadError';
import { saveBlob } from '../../economy/download';
import { useLocaleChoice } from '../../i18n/hooks';
import { notifyError, notifySuccess } from '../../lib/notify';
import { ordersApi } from '../orders-api';
import { useOrdersTexts } from '../i18n/orders-texts';

const PAGE_SIZE = 25;
const STATUS_COLOR = { requested: 'yellow', issued: 'teal', rejected: 'red' } as const;

function IssueDialog({ invoice, onClose }: { invoice: AdminInvoice; onClose: () => void }) {
  const { tx, f } = useOrdersTexts();
  const client = useQueryClient();
  const [file, setFile] = useState<File | null>(null);
  const [number, setNumber] = useState(invoice.invoice_number ?? '');
  const issue = useMutation({
    mutationFn: () => ordersApi.issue(invoice.id, file!, number),
    onSuccess: async () => {
      notifySuccess(tx.invoices.issued);
      await client.invalidateQueries({ queryKey: ['admin', 'invoices'] });
      onClose();
    },
    onError: notifyError,
  });
  return (
    <Modal
      opened
      onClose={onClose}
      title={f(tx.invoices.issueTitle, { id: invoice.order_id })}
      data-testid="invoice-issue-dialog"
    >
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (file) issue.mutate();
        }}
      >
        <Stack>
          <Text size="sm">
            {invoice.title} {invoice.tax_number ? `· ${invoice.tax_number}` : ''} · {invoice.email}
          </Text>
          <FileInput
            label={tx.invoices.file}
            accept="application/pdf"
            value={file}
            onChange={setFile}
            required
            data-testid="invoice-file"
          />
          <TextInput
            label={tx.invoices.number}
            value={number}
            onChange={(e) => setNumber(e.currentTarget.value)}
            maxLength={64}
            data-testid="invoice-number"
          />
          <Group justify="flex-end">
            <Button type="submit" disabled={!file} loading={issue.isPending} data-testid="invoice-issue-confirm">
              {tx.invoices.issueConfirm}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

function RejectDialog({ invoice, onClose }: { invoice: AdminInvoice; onClose: () => void }) {
  const { tx, f } = useOrdersTexts();
  const client = useQueryClient();
  const [reason, setReason] = useState('');
  const reject = useMutation({
    mutationFn: () => ordersApi.reject(invoice.id, reason.trim()),
    onSuccess: async () => {
      notifySuccess(tx.invoices.rejected);
      await client.invalidateQueries({ queryKey: ['admin', 'invoices'] });
      onClose();
    },
    onError: notifyError,
  });
  return (
    <Modal
      opened
      onClose={onClose}
      title={f(tx.invoices.rejectTitle, { id: invoice.order_id })}
      data-testid="invoice-reject-dialog"
    >
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (reason.trim()) reject.mutate();
        }}
      >
        <Stack>
          <Textarea
            label={tx.invoices.reason}
            value={reason}
            onChange={(e) => setReason(e.currentTarget.value)}
            maxLength={500}
            required
            autosize
            minRows={2}
            data-testid="invoice-reject-reason"
          />
          <Group justify="flex-end">
            <Button
              type="submit"
              color="red"
              disabled={!reason.trim()}
              loading={reject.isPending}
              data-testid="invoice-reject-confirm"
            >
              {tx.invoices.rejectConfirm}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

/** Finance's 发票 desk: requests by status (in the URL), issue with the file, or return with a reason. */
export default function InvoicesPage() {
  const { tx, f } = useOrdersTexts();
  const { ui } = useLocaleChoice();
  const [params, setParams] = useSearchParams();
  const page = Math.max(1, Number(params.get('page')) || 1);
  const status = params.has('status') ? (params.get('status') ?? '') : 'requested';
  const [issuing, setIssuing] = useState<AdminInvoice | null>(null);
  const [rejecting, setRejecting] = useState<AdminInvoice | null>(null);
  const list = useQuery({
    queryKey: ['admin', 'invoices', status, page],
    queryFn: () => ordersApi.invoices({ status: status || undefined, page, page_size: PAGE_SIZE }),
    placeholderData: keepPreviousData,
  });
  const download = useMutation({
    mutationFn: async (invoice: AdminInvoice) =>
      saveBlob(await (await ordersApi.invoiceFile(invoice)).blob(), `invoice-${invoice.order_id}.pdf`),
    onError: notifyError,
  });
  const go = (nextStatus: string, nextPage: number) => {
    const search = new URLSearchParams();
    search.set('status', nextStatus);
    if (nextPage > 1) search.set('page', String(nextPage));
    setParams(search);
  };
  const time = new Intl.DateTimeFormat(ui, { dateStyle: 'short', timeStyle: 'short' });
  return (
    <>
      <PageHeader title={tx.invoices.title} description={tx.invoices.description} />
      <Stack>
        <NativeSelect
          label={tx.invoices.status}
          value={status}
          onChange={(e) => go(e.currentTarget.value, 1)}
          data={[
            { value: '', label: tx.invoices.all },
            ...INVOICE_STATUSES.map((s) => ({ value: s, label: tx.invoices.statuses[s] })),
          ]}
          maw={240}
          data-testid="invoices-status"
        />
        {list.isError ? (
          <LoadError error={list.error} onRetry={() => void list.refetch()} what="invoices" />
        ) : (
          <DataTable<AdminInvoice>
            withTableBorder
            borderRadius="md"
            striped
            minHeight={200}
            fetching={list.isFetching}
            records={list.data?.items ?? []}
            totalRecords={list.data?.total ?? 0}
            recordsPerPage={PAGE_SIZE}
            page={page}
            onPageChange={(p) => go(status, p)}
            paginationText={({ from, to, totalRecords }) => f(tx.orders.records, { from, to, total: totalRecords })}
            noRecordsText={tx.invoices.empty}
            data-testid="invoices-table"
            columns={[
              {
                accessor: 'created_at',
                title: tx.invoices.columns.created,
                noWrap: true,
                visibleMediaQuery: (theme) => `(min-width: ${theme.breakpoints.md})`,
                render: (i) => time.format(new Date(i.created_at)),
              },
              {
                accessor: 'order_id',
                title: tx.invoices.columns.order,
                render: (i) => (
                  <Text size="xs" ff="monospace" data-testid="invoice-row" data-order-id={i.order_id} data-status={i.status}>
                    {i.order_id}
                  </Text>
                ),
              },
              { accessor: 'type', title: tx.invoices.columns.type, render: (i) => tx.invoices.types[i.type] },
              { accessor: 'title', title: tx.invoices.columns.title },
              {
                accessor: 'tax_number',
                title: tx.invoices.columns.tax,
                visibleMediaQuery: (theme) => `(min-width: ${theme.breakpoints.sm})`,
                render: (i) => i.tax_number ?? '—',
              },
              {
                accessor: 'email',
                title: tx.invoices.columns.email,
                visibleMediaQuery: (theme) => `(min-width: ${theme.breakpoints.md})`,
              },
              {
                accessor: 'status',
                title: tx.invoices.columns.status,
                render: (i) => (
                  <Badge color={STATUS_COLOR[i.status]} variant="light">
                    {tx.invoices.statuses[i.status]}
                  </Badge>
                ),
              },
              {
                accessor: 'actions',
                title: '',
                render: (i) => (
                  <Group gap="xs" justify="flex-end" wrap="nowrap">
                    {i.status !== 'rejected' && (
                      <Button size="xs" variant="light" onClick={() => setIssuing(i)} data-testid="invoice-issue">
                        {tx.invoices.issue}
                      </Button>
                    )}
                    {i.status === 'requested' && (
                      <Button size="xs" variant="subtle" color="red" onClick={() => setRejecting(i)} data-testid="invoice-reject">
                        {tx.invoices.reject}
                      </Button>
                    )}
                    {i.status === 'issued' && (
                      <Button size="xs" variant="subtle" onClick={() => download.mutate(i)} data-testid="invoice-admin-download">
                        {tx.invoices.download}
                      </Button>
                    )}
                  </Group>
                ),
              },
            ]}
          />
        )}
      </Stack>
      {issuing && <IssueDialog invoice={issuing} onClose={() => setIssuing(null)} />}
      {rejecting && <RejectDialog invoice={rejecting} onClose={() => setRejecting(null)} />}
    </>
  );
}
