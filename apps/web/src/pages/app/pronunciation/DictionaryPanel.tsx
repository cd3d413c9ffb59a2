import { useState } from 'react';
import { ActionIcon, Alert, Badge, Button, Group, Paper, Skeleton, Stack, Table, Text, Title, Tooltip } from '@mantine/core';
import { IconArchive, IconDownload, IconPlus, IconRestore, IconStar, IconStarOff, IconTrash } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { LoadError } from '../../../components/LoadError';
import { formatDateTime } from '../../../economy/usage';
import { useLocaleChoice } from '../../../i18n/hooks';
import { notifyError, notifySuccess } from '../../../lib/notify';
import { downloadVersion, type DictionaryDetail } from '../../../speech/pronunciation';
import { useAddRule, useDictionary, useRemoveRule, useUpdate, useVersions } from './queries';
import { EMPTY_RULE, RuleFields, ruleOf, type RuleDraft } from './RuleFields';
import { RulePlayButton } from './RulePlayButton';

type RuleOut = DictionaryDetail['rules'][number];

function saidAs(r: RuleOut): string {
  return r.type === 'alias' ? r.alias : `/${r.phoneme}/ (${r.alphabet === 'ipa' ? 'IPA' : 'ARPAbet'})`;
}

async function saveVersion(d: DictionaryDetail, versionId: string): Promise<void> {
  const blob = await downloadVersion(d.id, versionId);
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = `${d.name.replace(/[^\p{L}\p{N}_-]+/gu, '-')}-${versionId}.pls`;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 60_000);
}

function Versions({ d }: { d: DictionaryDetail }) {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  const versions = useVersions(d.id);
  return (
    <Stack gap="xs" data-testid="dictionary-versions" data-count={versions.data?.versions.length ?? ''}>
      <Title order={3} size="h5">
        {t('pronunciation.versionsTitle')}
      </Title>
      <Text size="xs" c="dimmed">
        {t('pronunciation.versionsHint')}
      </Text>
      {versions.isPending ? (
        <Skeleton h={60} />
      ) : (
        (versions.data?.versions ?? []).map((v) => (
          <Group
            key={v.version_id}
            justify="space-between"
            wrap="wrap"
            gap="xs"
            data-testid="version-row"
            data-version-id={v.version_id}
          >
            <Group gap="xs" wrap="wrap" style={{ minWidth: 0 }}>
              <Text size="sm" ff="monospace" style={{ wordBreak: 'break-all' }}>
                {v.version_id}
              </Text>
              {v.latest && (
                <Badge size="sm" variant="light">
                  {t('pronunciation.latest')}
                </Badge>
              )}
              <Text size="xs" c="dimmed">
                {t('pronunciation.rulesCount', { count: v.version_rules_num })} ·{' '}
                {formatDateTime(new Date(v.creation_time_unix * 1000).toISOString(), ui)}
              </Text>
            </Group>
            <Button
              size="compact-sm"
              variant="subtle"
              leftSection={<IconDownload size={14} />}
              onClick={() => void saveVersion(d, v.version_id).catch(notifyError)}
              data-testid="version-download"
            >
              {t('pronunciation.download')}
            </Button>
          </Group>
        ))
      )}
    </Stack>
  );
}

function AddRule({ d }: { d: DictionaryDetail }) {
  const { t } = useTranslation();
  const [draft, setDraft] = useState<RuleDraft>(EMPTY_RULE);
  const add = useAddRule(d.id);
  const rule = ruleOf(draft);
  return (
    <Stack gap="xs">
      <Title order={3} size="h5">
        {t('pronunciation.addTitle')}
      </Title>
      <RuleFields value={draft} onChange={setDraft} testId="add-rule" />
      <Group>
        <Button
          leftSection={<IconPlus size={16} />}
          disabled={!rule}
          loading={add.isPending}
          onClick={() =>
            rule &&
            add.mutate(rule, {
              onSuccess: (r) => {
                notifySuccess(t('pronunciation.added', { word: rule.string_to_replace, version: r.version_id }));
                setDraft(EMPTY_RULE);
              },
              onError: notifyError,
            })
          }
          data-testid="add-rule-submit"
        >
          {t('pronunciation.add')}
        </Button>
      </Group>
    </Stack>
  );
}

function RulesTable({ d, voiceId, audio }: { d: DictionaryDetail; voiceId: string | undefined; audio: HTMLAudioElement | null }) {
  const { t } = useTranslation();
  const remove = useRemoveRule(d.id);
  const writable = !d.shared;
  if (d.rules.length === 0) return <Text c="dimmed">{t('pronunciation.noRules')}</Text>;
  const locator = { pronunciation_dictionary_id: d.id, version_id: d.latest_version_id };
  return (
    <Table.ScrollContainer minWidth={560}>
      <Table data-testid="rules-table">
        <Table.Thead>
          <Table.Tr>
            {['colWord', 'colType', 'colSaidAs', 'colOptions', 'colActions'].map((c) => (
              <Table.Th key={c}>{t(`pronunciation.${c}` as 'pronunciation.colWord')}</Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {d.rules.map((r) => (
            <Table.Tr key={r.string_to_replace} data-testid="rule-row" data-word={r.string_to_replace} data-type={r.type}>
              <Table.Td fw={600}>{r.string_to_replace}</Table.Td>
              <Table.Td>{r.type === 'alias' ? t('pronunciation.alias') : t('pronunciation.phoneme')}</Table.Td>
              <Table.Td data-testid="rule-said-as">{saidAs(r)}</Table.Td>
              <Table.Td>
                <Text size="xs" c="dimmed">
                  {r.case_sensitive === false ? t('pronunciation.caseInsensitive') : t('pronunciation.caseSensitive')} ·{' '}
                  {r.word_boundaries === false ? t('pronunciation.partWord') : t('pronunciation.wholeWord')}
                </Text>
              </Table.Td>
              <Table.Td>
                <Group gap="xs" wrap="nowrap">
                  <RulePlayButton word={r.string_to_replace} voiceId={voiceId} locator={locator} audio={audio} />
                  {writable && (
                    <Tooltip label={t('pronunciation.remove')} withArrow>
                      <ActionIcon
                        variant="subtle"
                        color="red"
                        aria-label={`${t('pronunciation.remove')}: ${r.string_to_replace}`}
                        loading={remove.isPending && remove.variables === r.string_to_replace}
                        onClick={() =>
                          remove.mutate(r.string_to_replace, {
                            onSuccess: (res) =>
                              notifySuccess(t('pronunciation.removed', { word: r.string_to_replace, version: res.version_id })),
                            onError: notifyError,
                          })
                        }
                        data-testid="rule-remove"
                      >
                        <IconTrash size={16} />
                      </ActionIcon>
                    </Tooltip>
                  )}
                </Group>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

/** One dictionary: default and archive, its latest rules (play, remove), a new rule, and its versions. */
export function DictionaryPanel({
  id,
  voiceId,
  audio,
}: {
  id: string;
  voiceId: string | undefined;
  audio: HTMLAudioElement | null;
}) {
  const { t } = useTranslation();
  const query = useDictionary(id);
  const update = useUpdate(id);
  const d = query.data;
  if (query.isPending) return <Skeleton h={240} radius="md" />;
  if (!d)
    return query.error ? (
      <LoadError error={query.error} onRetry={() => void query.refetch()} retrying={query.isFetching} what="dictionary" />
    ) : (
      <Alert color="orange">{t('pronunciation.notFound')}</Alert>
    );
  const archived = d.archived_time_unix !== null;
  return (
    <Paper
      withBorder
      radius="md"
      p="md"
      data-testid="dictionary-panel"
      data-id={d.id}
      data-default={d.default}
      data-archived={archived}
    >
      <Stack>
        <Group justify="space-between" wrap="wrap" gap="xs">
          <Group gap="xs" style={{ minWidth: 0 }}>
            <Title order={2} size="h4" style={{ wordBreak: 'break-word' }} data-testid="dictionary-title">
              {d.name}
            </Title>
            {d.default && (
              <Badge color="teal" variant="light">
                {t('pronunciation.default')}
              </Badge>
            )}
          </Group>
          {!d.shared && (
            <Group gap="xs" wrap="wrap">
              <Button
                size="compact-sm"
                variant="light"
                leftSection={d.default ? <IconStarOff size={14} /> : <IconStar size={14} />}
                loading={update.isPending && update.variables?.default !== undefined}
                disabled={archived}
                onClick={() =>
                  update.mutate(
                    { default: !d.default },
                    {
                      onSuccess: (m) => m.default && notifySuccess(t('pronunciation.nowDefault', { name: m.name })),
                      onError: notifyError,
                    },
                  )
                }
                data-testid="dictionary-default-toggle"
              >
                {d.default ? t('pronunciation.unsetDefault') : t('pronunciation.setDefault')}
              </Button>
              <Button
                size="compact-sm"
                variant="subtle"
                color={archived ? undefined : 'orange'}
                leftSection={archived ? <IconRestore size={14} /> : <IconArchive size={14} />}
                loading={update.isPending && update.variables?.archived !== undefined}
                onClick={() => update.mutate({ archived: !archived }, { onError: notifyError })}
                data-testid="dictionary-archive-toggle"
              >
                {archived ? t('pronunciation.unarchive') : t('pronunciation.archive')}
              </Button>
            </Group>
          )}
        </Group>
        {d.shared && (
          <Text size="sm" c="dimmed">
            {t('pronunciation.readOnly')}
          </Text>
        )}
        <Title order={3} size="h5">
          {t('pronunciation.rulesTitle')}
        </Title>
        <RulesTable d={d} voiceId={voiceId} audio={audio} />
        {!d.shared && <AddRule d={d} />}
        <Versions d={d} />
      </Stack>
    </Paper>
  );
}
