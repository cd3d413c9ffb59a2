import { useState } from 'react';
import {
  ActionIcon,
  Alert,
  Badge,
  Button,
  Center,
  Divider,
  Group,
  Loader,
  Modal,
  Paper,
  Stack,
  Text,
  TextInput,
  Tooltip,
} from '@mantine/core';
import {
  IconArrowsShuffle,
  IconMicrophone,
  IconPencil,
  IconSparkles,
  IconTrash,
  IconUserCircle,
  IconWaveSine,
} from '@tabler/icons-react';
import { keepPreviousData, useMutation, useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { LIMITS } from '@polyvox/contracts';
import { describeError } from '../../api/errors';
import { EmptyState } from '../../components/EmptyState';
import { LoadError } from '../../components/LoadError';
import { Pager } from '../../components/Pager';
import { PageHeader } from '../../components/PageHeader';
import { deleteVoice, listMyVoices, MY_VOICES_KEY, renameVoice, type Voice } from '../../design/api';
import { useLocaleChoice } from '../../i18n/hooks';
import { formatDate, formatNumber } from '../../lib/format';
import { notifySuccess } from '../../lib/notify';
import { queryClient } from '../../lib/query-client';
import { findModel, useTtsConfig } from '../../speech/useTtsConfig';
import { pageCount, playgroundPath, VOICES_PAGE_SIZE } from '../../speech/voice-query';
import { PreviewButton } from './voices/PreviewButton';
import { languageSummary } from '../../speech/languages';

/** A voice's languages by name in the UI language, the first few and how many more. */
function languageLine(languages: string[], ui: string): string {
  const langs = languageSummary(languages, ui);
  return `${langs.text}${langs.more > 0 ? ` +${langs.more}` : ''}`;
}

const TYPE_COLOR = { preset: 'gray', mix: 'grape', prompt: 'violet', clone: 'indigo' } as const;

/** The account's own voices: play, rename, delete (confirmed), and use in the playground. */
export function MyVoicesPage() {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  const config = useTtsConfig().data;
  const [params] = useSearchParams();
  const highlight = params.get('voice');
  const [page, setPage] = useState(1);
  const [renaming, setRenaming] = useState<Voice | null>(null);
  const [deleting, setDeleting] = useState<Voice | null>(null);
  const list = useQuery({
    queryKey: [MY_VOICES_KEY, page],
    queryFn: ({ signal }) => listMyVoices({ page, page_size: VOICES_PAGE_SIZE }, signal),
    placeholderData: keepPreviousData,
    meta: { silent: true },
  });
  const total = list.data?.total ?? 0;
  const pages = pageCount(total, VOICES_PAGE_SIZE);

  const actions = (
    <Group gap="xs">
      <Button component={Link} to="/app/text-to-voice" variant="light" leftSection={<IconSparkles size={16} />}>
        {t('nav.textToVoice')}
      </Button>
      <Button component={Link} to="/app/voice-cloning" variant="light" leftSection={<IconMicrophone size={16} />}>
        {t('nav.voiceCloning')}
      </Button>
      <Button
        component={Link}
        to="/app/mix"
        variant="light"
        leftSection={<IconArrowsShuffle size={16} />}
        data-testid="my-voices-mix"
      >
        {t('nav.mix')}
      </Button>
    </Group>
  );

  return (
    <Stack data-testid="my-voices-page">
      <PageHeader
        title={t('myVoices.title')}
        description={t('myVoices.description')}
        actions={list.data && total > 0 ? actions : undefined}
      />
      {list.isError && !list.data ? (
        <LoadError error={list.error} onRetry={() => void list.refetch()} retrying={list.isFetching} what="my-voices" />
      ) : !list.data ? (
        <Center py="xl">
          <Loader />
        </Center>
      ) : total === 0 ? (
        <EmptyState
          icon={<IconUserCircle size={26} />}
          title={t('myVoices.emptyTitle')}
          body={t('myVoices.emptyBody')}
          action={<Group mt="sm">{actions}</Group>}
        />
      ) : (
        <Paper withBorder radius="md" data-testid="my-voices-list" data-total={total}>
          <Stack gap={0}>
            {list.data.items.map((voice, i) => (
              <div key={voice.id}>
                {i > 0 && <Divider />}
                <Group
                  wrap="wrap"
                  gap="sm"
                  px="md"
                  py="sm"
                  data-testid="my-voice-row"
                  data-voice-id={voice.id}
                  data-type={voice.type}
                  bg={voice.id === highlight ? 'var(--mantine-color-violet-0)' : undefined}
                >
                  <Group wrap="nowrap" gap="md" style={{ flex: '1 1 200px', minWidth: 0 }}>
                    <PreviewButton voice={voice} />
                    <Stack gap={2} style={{ flex: 1, minWidth: 0 }}>
                      <Group gap={6} wrap="nowrap">
                        <Text fw={600} size="sm" truncate title={voice.name} data-testid="my-voice-name">
                          {voice.name}
                        </Text>
                        <Badge size="xs" variant="light" color={TYPE_COLOR[voice.type]}>
                          {t(`design.types.${voice.type}`)}
                        </Badge>
                      </Group>
                      <Text size="xs" c="dimmed" truncate title={voice.languages.join(', ')} data-testid="my-voice-meta">
                        <span data-testid="my-voice-gender" data-gender={voice.gender}>
                          {t(`genders.${voice.gender}`)}
                        </span>
                        {' · '}
                        <span data-testid="my-voice-languages">{languageLine(voice.languages, ui)}</span>
                        {' · '}
                        {findModel(config, voice.model)?.model_name ?? voice.model} · {formatDate(voice.created_at, ui)}
                      </Text>
                      {voice.description && (
                        <Text size="xs" c="dimmed" lineClamp={2} title={voice.description} data-testid="my-voice-description">
                          {voice.description}
                        </Text>
                      )}
                    </Stack>
                  </Group>
                  <Group gap={4} wrap="nowrap" style={{ flexShrink: 0, marginLeft: 'auto' }}>
                    <Button
                      component={Link}
                      to={playgroundPath(voice.id)}
                      variant="light"
                      size="xs"
                      leftSection={<IconWaveSine size={14} />}
                      data-testid="my-voice-use"
                    >
                      {t('voices.use')}
                    </Button>
                    <Tooltip label={t('design.rename')}>
                      <ActionIcon
                        variant="subtle"
                        onClick={() => setRenaming(voice)}
                        aria-label={t('design.rename')}
                        data-testid="my-voice-rename"
                      >
                        <IconPencil size={16} />
                      </ActionIcon>
                    </Tooltip>
                    <Tooltip label={t('design.delete')}>
                      <ActionIcon
                        variant="subtle"
                        color="red"
                        onClick={() => setDeleting(voice)}
                        aria-label={t('design.delete')}
                        data-testid="my-voice-delete"
                      >
                        <IconTrash size={16} />
                      </ActionIcon>
                    </Tooltip>
                  </Group>
                </Group>
              </div>
            ))}
          </Stack>
        </Paper>
      )}
      {pages > 1 && (
        <Group justify="center">
          <Pager total={pages} value={Math.min(page, pages)} onChange={setPage} />
        </Group>
      )}
      {list.data && total > 0 && (
        <Text size="sm" c="dimmed" ta="center">
          {t('voices.total', { total: formatNumber(total, ui) })}
        </Text>
      )}
      <RenameDialog voice={renaming} onClose={() => setRenaming(null)} />
      <DeleteDialog voice={deleting} onClose={() => setDeleting(null)} />
    </Stack>
  );
}

function RenameDialog({ voice, onClose }: { voice: Voice | null; onClose: () => void }) {
  const { t } = useTranslation();
  return (
    <Modal opened={!!voice} onClose={onClose} title={t('design.renameTitle')} centered>
      {voice && <RenameBody key={voice.id} voice={voice} onClose={onClose} />}
    </Modal>
  );
}

function RenameBody({ voice, onClose }: { voice: Voice; onClose: () => void }) {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  const [name, setName] = useState(voice.name);
  const [error, setError] = useState<string | null>(null);
  const rename = useMutation({
    mutationFn: () => renameVoice({ id: voice.id, name: name.trim() }),
    meta: { silent: true },
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: [MY_VOICES_KEY] });
      void queryClient.invalidateQueries({ queryKey: ['voice', voice.id] });
      notifySuccess(t('design.renamed'));
      onClose();
    },
    onError: (err) => setError(describeError(err, ui, t('errors.network'))),
  });
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        if (!name.trim()) setError(t('design.nameRequired'));
        else rename.mutate();
      }}
      noValidate
    >
      <Stack>
        <TextInput
          label={t('design.name')}
          value={name}
          maxLength={LIMITS.nameMaxLength}
          onChange={(e) => {
            setName(e.currentTarget.value);
            setError(null);
          }}
          error={error}
          withAsterisk
          data-autofocus
          data-testid="rename-input"
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            {t('common.cancel')}
          </Button>
          <Button type="submit" loading={rename.isPending} data-testid="rename-save">
            {t('common.save')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function DeleteDialog({ voice, onClose }: { voice: Voice | null; onClose: () => void }) {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  const remove = useMutation({
    mutationFn: (id: string) => deleteVoice(id),
    meta: { silent: true },
    onSuccess: (_r, id) => {
      void queryClient.invalidateQueries({ queryKey: [MY_VOICES_KEY] });
      queryClient.removeQueries({ queryKey: ['voice', id] });
      notifySuccess(t('design.deleted'));
      onClose();
    },
  });
  return (
    <Modal
      opened={!!voice}
      onClose={() => {
        remove.reset();
        onClose();
      }}
      title={t('design.deleteTitle')}
      centered
    >
      {voice && (
        <Stack data-testid="delete-dialog">
          <Text size="sm">{t('design.deleteBody', { name: voice.name })}</Text>
          {remove.isError && (
            <Alert color="red" variant="light" data-testid="delete-error">
              {describeError(remove.error, ui, t('errors.network'))}
            </Alert>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              {t('common.cancel')}
            </Button>
            <Button color="red" loading={remove.isPending} onClick={() => remove.mutate(voice.id)} data-testid="delete-confirm">
              {t('design.delete')}
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}
