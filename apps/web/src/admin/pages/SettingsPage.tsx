import '@mantine/core/styles/NumberInput.css';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Badge, Button, Group, NumberInput, Paper, Select, Stack, Switch, Text, TextInput, Title } from '@mantine/core';
import type { SettingKey } from '@polyvox/contracts';
import { notifyInfo, notifySuccess } from '../../lib/notify';
import { ApiError } from '../../api/errors';
import { PageHeader } from '../../components/PageHeader';
import { addEnginesMessages } from '../i18n/engines-index';
import { enginesApi, type SettingValue } from '../engines-api';

addEnginesMessages();

const SETTINGS_KEY = ['admin', 'settings'] as const;

const GROUPS: { group: 'credits' | 'limits' | 'label' | 'signup' | 'moderation' | 'sms' | 'history'; keys: SettingKey[] }[] = [
  { group: 'credits', keys: ['ANONYMOUS_TRIAL_CREDITS', 'FREE_PLAN_CREDITS'] },
  {
    group: 'limits',
    keys: [
      'TRIAL_GRANTS_PER_IP_DAY',
      'PLAN_GRANTS_PER_IP_DAY',
      'ACCOUNT_LIMIT_PER_IP_HOUR',
      'CODE_LIMIT_PER_IP_HOUR',
      'CODE_LIMIT_PER_EMAIL_DAY',
      'SIGN_IN_LIMIT_PER_IP_MINUTE',
      'VERIFY_PER_MINUTE',
    ],
  },
  { group: 'label', keys: ['AI_LABEL_EXPLICIT', 'AI_LABEL_POSITION'] },
  { group: 'signup', keys: ['SIGNUP_OPEN', 'REAL_NAME'] },
  { group: 'sms', keys: ['SMS_COUNTRIES', 'SMS_LIMIT_PER_IP_HOUR', 'SMS_FREE_PER_IP_DAY', 'SMS_DAILY_CAP'] },
  {
    group: 'moderation',
    keys: ['MODERATION_FAIL_SYNTHESIS', 'MODERATION_FAIL_DESIGN', 'MODERATION_KEEP_DAYS', 'VOICE_RETENTION_DAYS'],
  },
  { group: 'history', keys: ['HISTORY_RETENTION_DAYS'] },
];

/** Runtime settings: trial credits, rate limits, the explicit AI label and sign-up, each with its start-up value. */
export default function SettingsPage() {
  const { t, i18n } = useTranslation('adminSettings');
  const client = useQueryClient();
  const settings = useQuery({ queryKey: SETTINGS_KEY, queryFn: enginesApi.settings });
  const [draft, setDraft] = useState<Record<string, SettingValue>>({});
  useEffect(() => {
    if (settings.data) setDraft(settings.data.values);
  }, [settings.data]);
  const changes = useMemo(() => {
    const now = settings.data?.values ?? {};
    return Object.fromEntries(Object.entries(draft).filter(([k, v]) => now[k] !== v));
  }, [draft, settings.data]);
  const [conflict, setConflict] = useState(false);
  const save = useMutation({
    mutationFn: () => enginesApi.saveSettings(changes, settings.data?.version ?? 0),
    onSuccess: (data) => {
      setConflict(false);
      client.setQueryData(SETTINGS_KEY, data);
      notifySuccess(t('saved'));
    },
    // Changed by someone else since this page read them: say so and show what is stored now (the draft follows it).
    onError: (e) => {
      if (e instanceof ApiError && e.status === 409) {
        setConflict(true);
        void settings.refetch();
      }
    },
  });
  const data = settings.data;
  const shown = (key: SettingKey, v: SettingValue | undefined): string => {
    if (v === undefined) return '';
    if (key === 'SIGNUP_OPEN') return v ? t('on') : t('off');
    if (key === 'AI_LABEL_EXPLICIT') return t(`labelMode.${v as 'off' | 'rhythm' | 'speech'}`);
    if (key === 'AI_LABEL_POSITION') return t(`labelPosition.${v as 'start' | 'end'}`);
    if (key === 'MODERATION_FAIL_SYNTHESIS' || key === 'MODERATION_FAIL_DESIGN') return t(`failMode.${v as 'open' | 'closed'}`);
    if (key === 'REAL_NAME') return t(`realName.${v as 'off' | 'phone'}`);
    if (key === 'SMS_COUNTRIES') return v === '*' ? t('everyCountry') : String(v);
    return new Intl.NumberFormat(i18n.language).format(v as number);
  };
  const field = (key: SettingKey) => {
    const label = t(`keys.${key}`);
    const description = (
      <Group gap={6} component="span">
        <span>{t('starting', { value: shown(key, data?.starting[key]) })}</span>
        {data && Object.hasOwn(data.overrides, key) && (
          <Badge size="xs" variant="light" component="span">
            {t('changed')}
          </Badge>
        )}
      </Group>
    );
    const value = draft[key];
    const testId = `setting-${key}`;
    if (key === 'SIGNUP_OPEN')
      return (
        <Stack gap={2} key={key}>
          <Switch
            label={label}
            checked={value === true}
            onChange={(e) => setDraft((d) => ({ ...d, [key]: e.currentTarget.checked }))}
            data-testid={testId}
          />
          <Text size="xs" c="dimmed">
            {description}
          </Text>
        </Stack>
      );
    if (key === 'SMS_COUNTRIES')
      return (
        <TextInput
          key={key}
          label={label}
          description={description}
          placeholder="CN,HK,MO,TW"
          value={typeof value === 'string' ? value : ''}
          onChange={(e) => {
            const next = e.currentTarget.value.toUpperCase().replace(/\s+/g, '');
            setDraft((d) => ({ ...d, [key]: next }));
          }}
          data-testid={testId}
        />
      );
    if (
      key === 'AI_LABEL_EXPLICIT' ||
      key === 'AI_LABEL_POSITION' ||
      key === 'REAL_NAME' ||
      key === 'MODERATION_FAIL_SYNTHESIS' ||
      key === 'MODERATION_FAIL_DESIGN'
    ) {
      const options =
        key === 'AI_LABEL_EXPLICIT'
          ? (['off', 'rhythm', 'speech'] as const).map((v) => ({ value: v, label: t(`labelMode.${v}`) }))
          : key === 'AI_LABEL_POSITION'
            ? (['start', 'end'] as const).map((v) => ({ value: v, label: t(`labelPosition.${v}`) }))
            : key === 'REAL_NAME'
              ? (['off', 'phone'] as const).map((v) => ({ value: v, label: t(`realName.${v}`) }))
              : (['open', 'closed'] as const).map((v) => ({ value: v, label: t(`failMode.${v}`) }));
      return (
        <Select
          key={key}
          label={label}
          description={description}
          data={options}
          value={typeof value === 'string' ? value : null}
          onChange={(v) => v && setDraft((d) => ({ ...d, [key]: v }))}
          allowDeselect={false}
          data-testid={testId}
        />
      );
    }
    return (
      <NumberInput
        key={key}
        label={label}
        description={description}
        value={typeof value === 'number' ? value : ''}
        onChange={(v) => setDraft((d) => ({ ...d, [key]: typeof v === 'number' ? v : Number(v) }))}
        allowDecimal={false}
        thousandSeparator={i18n.language === 'en' ? ',' : undefined}
        data-testid={testId}
      />
    );
  };
  return (
    <Stack gap="md" data-testid="admin-settings">
      <PageHeader title={t('title')} description={t('body')} />
      {data?.updated_at && (
        <Text size="xs" c="dimmed" data-testid="settings-version">
          {t('version', {
            version: data.version,
            at: new Intl.DateTimeFormat(i18n.language, { dateStyle: 'short', timeStyle: 'short' }).format(
              new Date(data.updated_at),
            ),
          })}
        </Text>
      )}
      {conflict && (
        <Alert color="orange" role="alert" data-testid="settings-conflict">
          {t('conflict')}
        </Alert>
      )}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (Object.keys(changes).length === 0) notifyInfo(t('nothing'));
          else save.mutate();
        }}
      >
        <Stack gap="md">
          {GROUPS.map(({ group, keys }) => (
            <Paper withBorder p="md" key={group}>
              <Title order={2} size="h3" mb="sm">
                {t(`groups.${group}`)}
              </Title>
              <Stack gap="sm">{keys.map(field)}</Stack>
            </Paper>
          ))}
          <Group justify="flex-start" wrap="wrap">
            <Button variant="default" onClick={() => data && setDraft(data.values)} disabled={Object.keys(changes).length === 0}>
              {t('reset')}
            </Button>
            <Button type="submit" loading={save.isPending} data-testid="settings-save">
              {t('save')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Stack>
  );
}
