import { useState } from 'react';
import { Alert, Button, FileInput, Group, Modal, Stack, Tabs, TextInput } from '@mantine/core';
import { IconFileUpload, IconListDetails, IconPlus } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { describeError } from '../../../api/errors';
import { useLocaleChoice } from '../../../i18n/hooks';
import { notifySuccess } from '../../../lib/notify';
import { EMPTY_RULE, RuleFields, ruleOf, type RuleDraft } from './RuleFields';
import { useCreate } from './queries';

/** A new dictionary from rules written here, or from a PLS file; the server's refusal is shown in the form. */
export function CreateDictionaryDialog({ onClose, onCreated }: { onClose: () => void; onCreated: (id: string) => void }) {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  const [mode, setMode] = useState<'rules' | 'file'>('rules');
  const [name, setName] = useState('');
  const [drafts, setDrafts] = useState<RuleDraft[]>([EMPTY_RULE]);
  const [file, setFile] = useState<File | null>(null);
  const create = useCreate();
  const rules = drafts.map(ruleOf);
  const ready = name.trim() !== '' && (mode === 'file' ? !!file : rules.every((r) => r !== null));

  const submit = () => {
    if (!ready) return;
    const args =
      mode === 'file' ? { name: name.trim(), file: file! } : { name: name.trim(), rules: rules.filter((r) => r !== null) };
    create.mutate(args, {
      onSuccess: (made) => {
        notifySuccess(t('pronunciation.created', { name: made.name }));
        onCreated(made.id);
      },
    });
  };

  return (
    <Modal opened onClose={onClose} title={t('pronunciation.createTitle')} size="lg" data-testid="dictionary-create-dialog">
      <Stack>
        <TextInput
          label={t('pronunciation.name')}
          placeholder={t('pronunciation.namePlaceholder')}
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          maxLength={100}
          data-autofocus
          data-testid="dictionary-name"
        />
        <Tabs value={mode} onChange={(m) => m && (setMode(m as 'rules' | 'file'), create.reset())}>
          <Tabs.List>
            <Tabs.Tab value="rules" leftSection={<IconListDetails size={16} />} data-testid="dictionary-mode-rules">
              {t('pronunciation.fromRules')}
            </Tabs.Tab>
            <Tabs.Tab value="file" leftSection={<IconFileUpload size={16} />} data-testid="dictionary-mode-file">
              {t('pronunciation.fromFile')}
            </Tabs.Tab>
          </Tabs.List>
          <Tabs.Panel value="rules" pt="md">
            <Stack>
              {drafts.map((d, i) => (
                <RuleFields
                  key={i}
                  value={d}
                  onChange={(next) => setDrafts((all) => all.map((x, j) => (j === i ? next : x)))}
                  testId={`create-rule-${i}`}
                />
              ))}
              <Group>
                <Button
                  variant="subtle"
                  leftSection={<IconPlus size={14} />}
                  onClick={() => setDrafts((all) => [...all, EMPTY_RULE])}
                  data-testid="create-rule-more"
                >
                  {t('pronunciation.add')}
                </Button>
              </Group>
            </Stack>
          </Tabs.Panel>
          <Tabs.Panel value="file" pt="md">
            <FileInput
              label={t('pronunciation.file')}
              placeholder={t('pronunciation.filePlaceholder')}
              accept=".pls,.xml,application/pls+xml,application/xml,text/xml"
              value={file}
              onChange={(f) => {
                setFile(f);
                create.reset();
              }}
              clearable
              data-testid="dictionary-file"
            />
          </Tabs.Panel>
        </Tabs>
        {create.isError && (
          <Alert color="red" variant="light" data-testid="dictionary-create-error">
            {describeError(create.error, ui, t('errors.network'))}
          </Alert>
        )}
        <Group justify="flex-end">
          <Button onClick={submit} disabled={!ready} loading={create.isPending} data-testid="dictionary-create-submit">
            {t('pronunciation.createSubmit')}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
