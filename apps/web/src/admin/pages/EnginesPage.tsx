import '@mantine/core/styles/PasswordInput.css';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  Alert,
  Badge,
  Button,
  Checkbox,
  Group,
  Modal,
  Paper,
  PasswordInput,
  Progress,
  Select,
  Stack,
  Switch,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { notifyInfo, notifySuccess } from '../../lib/notify';
import { PageHeader } from '../../components/PageHeader';
import { addEnginesMessages } from '../i18n/engines-index';
import { enginesApi, type Install, type Models, type Provider } from '../engines-api';

addEnginesMessages();

const ENGINES_KEY = ['admin', 'engines'] as const;
const MODELS_KEY = ['admin', 'models'] as const;
const PROVIDERS_KEY = ['admin', 'providers'] as const;

function formatBytes(n: number, locale: string): string {
  const units = ['B', 'kB', 'MB', 'GB'];
  let v = n;
  let u = 0;
  while (v >= 1000 && u < units.length - 1) {
    v /= 1000;
    u++;
  }
  return `${new Intl.NumberFormat(locale, { maximumFractionDigits: u ? 1 : 0 }).format(v)} ${units[u]}`;
}

function EnginesSection() {
  const { t } = useTranslation('adminEngines');
  const engines = useQuery({ queryKey: ENGINES_KEY, queryFn: enginesApi.engines, refetchInterval: 10_000 });
  const data = engines.data;
  return (
    <Paper withBorder p="md" data-testid="admin-engines">
      <Title order={2} size="h3" mb="sm">
        {t('engines.title')}
      </Title>
      {data && !data.started && (
        <Text size="sm" c="dimmed" mb="sm">
          {t('engines.notStarted')}
        </Text>
      )}
      <Table.ScrollContainer minWidth={420}>
        <Table striped>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('engines.id')}</Table.Th>
              <Table.Th>{t('engines.kind')}</Table.Th>
              <Table.Th>{t('engines.models')}</Table.Th>
              <Table.Th>{t('engines.voices')}</Table.Th>
              <Table.Th>{t('engines.status')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {data?.engines.map((e) => (
              <Table.Tr key={e.id} data-testid={`engine-${e.id}`}>
                <Table.Td>{e.id}</Table.Td>
                <Table.Td>{e.kind === 'remote' ? t('engines.remote') : t('engines.local')}</Table.Td>
                <Table.Td>{e.models}</Table.Td>
                <Table.Td>{e.voices}</Table.Td>
                <Table.Td>
                  <Badge color={e.status === 'ok' ? 'teal' : 'red'} title={e.message ?? undefined}>
                    {e.status === 'ok' ? t('engines.ok') : t('engines.unavailable')}
                  </Badge>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {data && data.model_problems.length > 0 && (
        <Alert color="yellow" mt="sm" title={t('engines.problems')}>
          {data.model_problems.map((p) => (
            <Text size="sm" key={p.folder}>
              {p.folder}: {p.message}
            </Text>
          ))}
        </Alert>
      )}
    </Paper>
  );
}

/** One install's progress, polled while it runs. */
function InstallProgress({ job, onEnd }: { job: Install; onEnd: (job: Install) => void }) {
  const { t, i18n } = useTranslation('adminEngines');
  const polled = useQuery({
    queryKey: ['admin', 'install', job.id],
    queryFn: () => enginesApi.installJob(job.id),
    initialData: job,
    refetchInterval: (q) => (q.state.data?.status === 'running' ? 500 : false),
  });
  const current = polled.data ?? job;
  useEffect(() => {
    if (current.status !== 'running') onEnd(current);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [current.status]);
  const pct = current.bytes_total ? Math.min(100, (100 * current.bytes_done) / current.bytes_total) : 0;
  return (
    <Stack gap={4} data-testid={`install-${current.model}`} data-status={current.status}>
      <Group justify="space-between" wrap="nowrap">
        <Text size="sm" fw={500}>
          {current.model}
        </Text>
        <Text size="xs" c="dimmed">
          {t(`models.status_${current.status}`)} ·{' '}
          {t('models.progress', {
            done: formatBytes(current.bytes_done, i18n.language),
            total: formatBytes(current.bytes_total, i18n.language),
          })}
        </Text>
      </Group>
      <Progress
        value={current.status === 'succeeded' ? 100 : pct}
        color={current.status === 'failed' ? 'red' : current.status === 'succeeded' ? 'teal' : 'blue'}
        animated={current.status === 'running'}
        aria-label={t('models.installing')}
      />
      {current.error && (
        <Text size="xs" c="red">
          {current.error}
        </Text>
      )}
    </Stack>
  );
}

function ModelsSection() {
  const { t, i18n } = useTranslation('adminEngines');
  const client = useQueryClient();
  const models = useQuery({ queryKey: MODELS_KEY, queryFn: enginesApi.models });
  const [confirming, setConfirming] = useState<Models['catalogue'][number] | null>(null);
  const [confirmed, setConfirmed] = useState(false);
  const [removing, setRemoving] = useState<string | null>(null);
  const [jobs, setJobs] = useState<Install[]>([]);
  const refresh = () => {
    void client.invalidateQueries({ queryKey: MODELS_KEY });
    void client.invalidateQueries({ queryKey: ENGINES_KEY });
  };
  const install = useMutation({
    mutationFn: ({ name, confirm }: { name: string; confirm: boolean }) => enginesApi.install(name, confirm),
    onSuccess: (job) => {
      setConfirming(null);
      setJobs((j) => [job, ...j.filter((x) => x.model !== job.model)]);
      notifySuccess(t('models.started', { name: job.model }));
    },
  });
  const remove = useMutation({
    mutationFn: (name: string) => enginesApi.removeModel(name),
    onSuccess: (r) => {
      setRemoving(null);
      notifySuccess(t('models.removed', { name: r.removed }));
      refresh();
    },
  });
  // Installs still running when the page opens (started elsewhere, or before a reload) are followed too.
  const running = (models.data?.installs ?? []).filter((j) => j.status === 'running' && !jobs.some((x) => x.id === j.id));
  const followed = [...jobs, ...running];
  const ended = (job: Install) => {
    if (job.status === 'succeeded') notifySuccess(t('models.succeeded', { name: job.model }));
    else notifyInfo(t('models.failed', { name: job.model, error: job.error ?? '' }));
    refresh();
  };
  const data = models.data;
  const licence = (l: { name: string; commercial: boolean } | null) =>
    l ? (
      <Badge
        color={l.commercial ? 'teal' : 'orange'}
        variant="light"
        title={l.commercial ? t('models.commercial') : t('models.nonCommercial')}
      >
        {l.name}
        {l.commercial ? '' : ` · ${t('models.nonCommercial')}`}
      </Badge>
    ) : (
      <Text size="sm" c="dimmed">
        {t('models.unknownLicence')}
      </Text>
    );
  return (
    <Paper withBorder p="md" data-testid="admin-models">
      <Title order={2} size="h3">
        {t('models.title')}
      </Title>
      {data && (
        <Text size="xs" c="dimmed" mb="sm" style={{ wordBreak: 'break-all' }}>
          {t('models.folder', { dir: data.models_dir })}
        </Text>
      )}
      {followed.length > 0 && (
        <Stack gap="xs" mb="md">
          {followed.map((job) => (
            <InstallProgress key={job.id} job={job} onEnd={ended} />
          ))}
        </Stack>
      )}
      <Title order={3} size="h4" mb="xs">
        {t('models.installed')}
      </Title>
      {data && data.installed.length === 0 && (
        <Text size="sm" c="dimmed" mb="sm">
          {t('models.none')}
        </Text>
      )}
      <Stack gap="xs" mb="md">
        {data?.installed.map((m) => (
          <Group key={m.name} justify="space-between" wrap="wrap" data-testid={`installed-${m.name}`}>
            <Group gap="xs">
              <Text fw={500}>{m.name}</Text>
              {licence(m.licence)}
            </Group>
            <Button size="xs" variant="light" color="red" onClick={() => setRemoving(m.name)}>
              {t('models.remove')}
            </Button>
          </Group>
        ))}
      </Stack>
      <Title order={3} size="h4" mb="xs">
        {t('models.catalogue')}
      </Title>
      <Table.ScrollContainer minWidth={560}>
        <Table>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('models.name')}</Table.Th>
              <Table.Th>{t('models.languages')}</Table.Th>
              <Table.Th>{t('models.size')}</Table.Th>
              <Table.Th>{t('models.licence')}</Table.Th>
              <Table.Th />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {data?.catalogue.map((m) => {
              const busy = followed.some((j) => j.model === m.name && j.status === 'running');
              return (
                <Table.Tr key={m.name} data-testid={`catalogue-${m.name}`}>
                  <Table.Td>
                    <Text size="sm" fw={500}>
                      {m.name}
                    </Text>
                    <Text size="xs" c="dimmed">
                      {m.family}
                    </Text>
                  </Table.Td>
                  <Table.Td>{m.languages.join(', ')}</Table.Td>
                  <Table.Td>{formatBytes(m.bytes, i18n.language)}</Table.Td>
                  <Table.Td>{licence(m.licence)}</Table.Td>
                  <Table.Td>
                    {m.installed ? (
                      <Badge color="teal" variant="outline">
                        {t('models.installed_one')}
                      </Badge>
                    ) : (
                      <Button
                        size="xs"
                        loading={busy}
                        onClick={() => {
                          if (m.licence.commercial) install.mutate({ name: m.name, confirm: false });
                          else {
                            setConfirmed(false);
                            setConfirming(m);
                          }
                        }}
                      >
                        {t('models.install')}
                      </Button>
                    )}
                  </Table.Td>
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <Modal
        opened={confirming !== null}
        onClose={() => setConfirming(null)}
        title={t('models.confirmTitle', { name: confirming?.name ?? '' })}
      >
        <Stack>
          <Alert color="orange">{t('models.confirmNonCommercial', { licence: confirming?.licence.name ?? '' })}</Alert>
          <Checkbox
            label={t('models.confirmCheck')}
            checked={confirmed}
            onChange={(e) => setConfirmed(e.currentTarget.checked)}
            data-testid="confirm-non-commercial"
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setConfirming(null)}>
              {t('providers.cancel')}
            </Button>
            <Button
              disabled={!confirmed}
              loading={install.isPending}
              onClick={() => confirming && install.mutate({ name: confirming.name, confirm: true })}
            >
              {t('models.install')}
            </Button>
          </Group>
        </Stack>
      </Modal>
      <Modal
        opened={removing !== null}
        onClose={() => setRemoving(null)}
        title={t('models.removeTitle', { name: removing ?? '' })}
      >
        <Stack>
          <Text size="sm">{t('models.removeBody')}</Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setRemoving(null)}>
              {t('providers.cancel')}
            </Button>
            <Button color="red" loading={remove.isPending} onClick={() => removing && remove.mutate(removing)}>
              {t('models.remove')}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Paper>
  );
}

interface ProviderForm {
  kind: 'openai' | 'elevenlabs';
  name: string;
  url: string;
  model: string;
  key: string;
}

const EMPTY: ProviderForm = { kind: 'openai', name: '', url: '', model: '', key: '' };

function ProviderEditor({ editing, onClose }: { editing: Provider | 'new' | null; onClose: () => void }) {
  const { t } = useTranslation('adminEngines');
  const client = useQueryClient();
  const [form, setForm] = useState<ProviderForm>(EMPTY);
  useEffect(() => {
    if (editing === 'new') setForm(EMPTY);
    else if (editing) setForm({ kind: editing.kind, name: editing.name, url: editing.url, model: editing.model ?? '', key: '' });
  }, [editing]);
  const save = useMutation({
    mutationFn: () =>
      editing === 'new'
        ? enginesApi.addProvider({ kind: form.kind, name: form.name, url: form.url, key: form.key, model: form.model || null })
        : enginesApi.editProvider((editing as Provider).id, {
            name: form.name,
            url: form.url,
            model: form.model || null,
            ...(form.key ? { key: form.key } : {}),
          }),
    onSuccess: () => {
      notifySuccess(t('providers.saved'));
      void client.invalidateQueries({ queryKey: PROVIDERS_KEY });
      onClose();
    },
  });
  const set = (k: keyof ProviderForm) => (v: string) => setForm((f) => ({ ...f, [k]: v }));
  return (
    <Modal opened={editing !== null} onClose={onClose} title={editing === 'new' ? t('providers.add') : t('providers.edit')}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate();
        }}
      >
        <Stack>
          <Select
            label={t('providers.kind')}
            data={[
              { value: 'openai', label: t('providers.kind_openai') },
              { value: 'elevenlabs', label: t('providers.kind_elevenlabs') },
            ]}
            value={form.kind}
            onChange={(v) => v && set('kind')(v)}
            disabled={editing !== 'new'}
            allowDeselect={false}
            data-testid="provider-kind"
          />
          <TextInput
            label={t('providers.name')}
            value={form.name}
            onChange={(e) => set('name')(e.currentTarget.value)}
            required
            data-testid="provider-name"
          />
          <TextInput
            label={t('providers.url')}
            placeholder="https://api.openai.com"
            value={form.url}
            onChange={(e) => set('url')(e.currentTarget.value)}
            required
            data-testid="provider-url"
          />
          <TextInput
            label={t('providers.model')}
            value={form.model}
            onChange={(e) => set('model')(e.currentTarget.value)}
            data-testid="provider-model"
          />
          <PasswordInput
            label={t('providers.key')}
            description={
              editing !== 'new' && editing
                ? `${t('providers.keyHint', { hint: editing.key_hint })} · ${t('providers.keyKeep')}`
                : t('providers.keyNever')
            }
            value={form.key}
            onChange={(e) => set('key')(e.currentTarget.value)}
            required={editing === 'new'}
            autoComplete="off"
            data-testid="provider-key"
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              {t('providers.cancel')}
            </Button>
            <Button type="submit" loading={save.isPending} data-testid="provider-save">
              {t('providers.save')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

function ProvidersSection() {
  const { t, i18n } = useTranslation('adminEngines');
  const client = useQueryClient();
  const providers = useQuery({ queryKey: PROVIDERS_KEY, queryFn: enginesApi.providers });
  const [editing, setEditing] = useState<Provider | 'new' | null>(null);
  const [deleting, setDeleting] = useState<Provider | null>(null);
  const changed = () => {
    void client.invalidateQueries({ queryKey: PROVIDERS_KEY });
    void client.invalidateQueries({ queryKey: ENGINES_KEY });
  };
  const enable = useMutation({
    mutationFn: ({ id, enabled }: { id: string; enabled: boolean }) => enginesApi.enableProvider(id, enabled),
    onSuccess: changed,
  });
  const test = useMutation({
    mutationFn: (id: string) => enginesApi.testProvider(id),
    onSuccess: (p) => {
      if (p.last_test?.ok) notifySuccess(t('providers.testOk', { message: p.last_test.message ?? '' }));
      else notifyInfo(t('providers.testFailed', { message: p.last_test?.message ?? '' }));
      changed();
    },
  });
  const del = useMutation({
    mutationFn: (id: string) => enginesApi.deleteProvider(id),
    onSuccess: () => {
      setDeleting(null);
      changed();
    },
  });
  const data = providers.data;
  const date = (iso: string) =>
    new Intl.DateTimeFormat(i18n.language, { dateStyle: 'short', timeStyle: 'short' }).format(new Date(iso));
  return (
    <Paper withBorder p="md" data-testid="admin-providers">
      <Group justify="space-between" mb="xs" wrap="wrap">
        <Title order={2} size="h3">
          {t('providers.title')}
        </Title>
        <Button size="xs" onClick={() => setEditing('new')} data-testid="provider-add">
          {t('providers.add')}
        </Button>
      </Group>
      <Text size="sm" c="dimmed" mb="sm">
        {t('providers.body')}
      </Text>
      {data && data.env.length > 0 && (
        <Alert color="blue" mb="sm" data-testid="providers-env">
          {t('providers.envWins', { kinds: data.env.map((k) => t(`providers.kind_${k}`)).join(', ') })}
        </Alert>
      )}
      {data && data.items.length === 0 && (
        <Text size="sm" c="dimmed">
          {t('providers.none')}
        </Text>
      )}
      <Stack gap="sm">
        {data?.items.map((p) => (
          <Paper key={p.id} withBorder p="sm" data-testid={`provider-${p.name}`}>
            <Group justify="space-between" wrap="wrap" gap="xs">
              <Stack gap={2} style={{ minWidth: 0, flex: '1 1 220px' }}>
                <Group gap="xs">
                  <Text fw={500}>{p.name}</Text>
                  <Badge variant="light">{t(`providers.kind_${p.kind}`)}</Badge>
                  {p.overridden_by_env && (
                    <Badge color="gray" variant="outline">
                      {t('providers.overridden')}
                    </Badge>
                  )}
                </Group>
                <Text size="xs" c="dimmed" style={{ wordBreak: 'break-all' }}>
                  {p.url}
                  {p.model ? ` · ${p.model}` : ''} · {t('providers.keyHint', { hint: p.key_hint })}
                </Text>
                <Text size="xs" c={p.last_test ? (p.last_test.ok ? 'teal' : 'red') : 'dimmed'} data-testid="provider-last-test">
                  {p.last_test
                    ? `${t('providers.lastTest')} ${date(p.last_test.at)}: ${p.last_test.ok ? t('providers.testOk', { message: p.last_test.message ?? '' }) : t('providers.testFailed', { message: p.last_test.message ?? '' })}`
                    : t('providers.never')}
                </Text>
              </Stack>
              <Group gap="xs">
                <Switch
                  label={t('providers.enabled')}
                  checked={p.enabled}
                  onChange={(e) => enable.mutate({ id: p.id, enabled: e.currentTarget.checked })}
                  data-testid="provider-enabled"
                />
                <Button
                  size="xs"
                  variant="light"
                  loading={test.isPending && test.variables === p.id}
                  onClick={() => test.mutate(p.id)}
                  data-testid="provider-test"
                >
                  {t('providers.test')}
                </Button>
                <Button size="xs" variant="default" onClick={() => setEditing(p)} data-testid="provider-edit">
                  {t('providers.edit')}
                </Button>
                <Button size="xs" variant="subtle" color="red" onClick={() => setDeleting(p)}>
                  {t('providers.delete')}
                </Button>
              </Group>
            </Group>
          </Paper>
        ))}
      </Stack>
      <ProviderEditor editing={editing} onClose={() => setEditing(null)} />
      <Modal
        opened={deleting !== null}
        onClose={() => setDeleting(null)}
        title={t('providers.deleteTitle', { name: deleting?.name ?? '' })}
      >
        <Stack>
          <Text size="sm">{t('providers.deleteBody')}</Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setDeleting(null)}>
              {t('providers.cancel')}
            </Button>
            <Button color="red" loading={del.isPending} onClick={() => deleting && del.mutate(deleting.id)}>
              {t('providers.delete')}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Paper>
  );
}

/** The operator's engines with their health, the models with install and removal, and the remote providers. */
export default function EnginesPage() {
  const { t } = useTranslation('adminEngines');
  return (
    <Stack gap="md">
      <PageHeader title={t('title')} />
      <EnginesSection />
      <ModelsSection />
      <ProvidersSection />
    </Stack>
  );
}
