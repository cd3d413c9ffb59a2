import { useState, type FormEvent } from 'react';
import { Alert, Badge, Button, FileInput, Group, Modal, Paper, Select, Stack, Text, TextInput } from '@mantine/core';
import { useMutation, useQuery } from '@tanstack/react-query';
import { PROTECTED_VOICE_CATEGORIES } from '@polyvox/contracts';
import { describeError } from '../../api/errors';
import { LoadError } from '../../components/LoadError';
import { PageHeader } from '../../components/PageHeader';
import { useLocaleChoice } from '../../i18n/hooks';
import { notifyError, notifyInfo } from '../../lib/notify';
import { queryClient } from '../../lib/query-client';
import { useTexts } from '../i18n/texts';
import { reportsApi, type ProtectedVoiceView } from '../reports-api';
import { REPORTS_TEXTS } from './ReportsPage';

const KEY = ['admin', 'protected-voices'] as const;
type Category = ProtectedVoiceView['category'];

/** The protected voices: each from a sample the operator uploads (or a voice taken down); removing one is audited. */
export default function ProtectedVoicesPage() {
  const texts = useTexts(REPORTS_TEXTS);
  const { ui } = useLocaleChoice();
  const list = useQuery({ queryKey: KEY, queryFn: () => reportsApi.protectedVoices(1) });
  const [file, setFile] = useState<File | null>(null);
  const [name, setName] = useState('');
  const [category, setCategory] = useState<Category>('public_figure');
  const [reason, setReason] = useState('');
  const add = useMutation({
    mutationFn: () => {
      const form = new FormData();
      form.append('name', name.trim());
      form.append('category', category);
      form.append('reason', reason.trim());
      form.append('file', file!, file!.name);
      return reportsApi.protect(form);
    },
    onSuccess: async () => {
      notifyInfo(texts.done);
      setFile(null);
      setName('');
      setReason('');
      await queryClient.invalidateQueries({ queryKey: KEY });
    },
  });
  // Removing asks for the reason the audit trail keeps.
  const [removing, setRemoving] = useState<ProtectedVoiceView | null>(null);
  const [removeReason, setRemoveReason] = useState('');
  const remove = useMutation({
    mutationFn: (id: string) => reportsApi.unprotect(id, removeReason.trim()),
    onSuccess: async () => {
      setRemoving(null);
      setRemoveReason('');
      await queryClient.invalidateQueries({ queryKey: KEY });
    },
    onError: notifyError,
  });
  const ready = file !== null && name.trim() !== '' && reason.trim() !== '';
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (ready) add.mutate();
  };
  const date = new Intl.DateTimeFormat(ui, { dateStyle: 'medium' });
  return (
    <>
      <PageHeader title={texts.protectedTitle} description={texts.protectedDescription} />
      <Stack>
        <Paper withBorder radius="md" p="md" maw={720}>
          <form onSubmit={submit}>
            <Stack>
              <Text fw={600}>{texts.add}</Text>
              <FileInput
                label={texts.file}
                accept="audio/*"
                value={file}
                onChange={setFile}
                clearable
                data-testid="protected-file"
              />
              <TextInput
                label={texts.name}
                value={name}
                onChange={(e) => setName(e.currentTarget.value)}
                maxLength={100}
                data-testid="protected-name"
              />
              <Select
                label={texts.category}
                value={category}
                onChange={(v) => setCategory((v as Category | null) ?? 'other')}
                data={PROTECTED_VOICE_CATEGORIES.map((c) => ({ value: c, label: texts.categories[c] }))}
                allowDeselect={false}
              />
              <TextInput
                label={texts.reason}
                value={reason}
                onChange={(e) => setReason(e.currentTarget.value)}
                maxLength={500}
                data-testid="protected-reason"
              />
              {add.error && (
                <Alert color="red" variant="light" role="alert">
                  {describeError(add.error, ui, '')}
                </Alert>
              )}
              <Button
                type="submit"
                disabled={!ready}
                loading={add.isPending}
                style={{ alignSelf: 'flex-start' }}
                data-testid="protected-add"
              >
                {texts.add}
              </Button>
            </Stack>
          </form>
        </Paper>
        {list.isError ? (
          <LoadError error={list.error} onRetry={() => void list.refetch()} what="protected-voices" />
        ) : list.data && list.data.items.length === 0 ? (
          <Text c="dimmed">{texts.noProtected}</Text>
        ) : (
          <Stack gap="xs" data-testid="protected-list">
            {list.data?.items.map((v) => (
              <Paper key={v.id} withBorder radius="md" p="sm" data-testid="protected-row" style={{ overflowWrap: 'anywhere' }}>
                <Group justify="space-between" wrap="wrap" gap="xs">
                  <Stack gap={2} style={{ minWidth: 0 }}>
                    <Group gap="xs">
                      <Text fw={600}>{v.name}</Text>
                      <Badge variant="light">{texts.categories[v.category]}</Badge>
                    </Group>
                    <Text size="xs" c="dimmed">
                      {texts.created}: {date.format(new Date(v.created_at))}
                      {v.source_voice_id ? ` · ${texts.source}: ${v.source_voice_id}` : ''}
                      {v.report_id ? ` · ${v.report_id}` : ''}
                    </Text>
                  </Stack>
                  <Button
                    size="xs"
                    variant="subtle"
                    color="red"
                    loading={remove.isPending && remove.variables === v.id}
                    onClick={() => setRemoving(v)}
                  >
                    {texts.remove}
                  </Button>
                </Group>
              </Paper>
            ))}
          </Stack>
        )}
      </Stack>
      <Modal
        opened={removing !== null}
        onClose={() => setRemoving(null)}
        title={`${texts.remove}: ${removing?.name ?? ''}`}
        centered
      >
        <form
          onSubmit={(e) => {
            e.preventDefault();
            if (removing && removeReason.trim()) remove.mutate(removing.id);
          }}
        >
          <Stack>
            <TextInput
              label={texts.reason}
              value={removeReason}
              onChange={(e) => setRemoveReason(e.currentTarget.value)}
              maxLength={500}
              data-autofocus
            />
            <Group justify="flex-end">
              <Button variant="default" onClick={() => setRemoving(null)}>
                {texts.cancel}
              </Button>
              <Button type="submit" color="red" disabled={!removeReason.trim()} loading={remove.isPending}>
                {texts.remove}
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </>
  );
}
