import { useRef, useState } from 'react';
import { Alert, Button, Group, Modal, SegmentedControl, Stack, Text, Textarea, TextInput } from '@mantine/core';
import { IconFileText } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { STUDIO_DOCUMENT_TYPES, STUDIO_LIMITS } from '@polyvox/contracts';
import { describeError } from '../../../api/errors';
import type { UploadProgress } from '../../../api/upload';
import { FileDrop } from '../../../components/FileDrop';
import { useLocaleChoice } from '../../../i18n/hooks';
import { formatBytes } from '../../../lib/format';
import { createFromFile, createFromText, type PasteFormat, type Project } from '../../../studio/api';
import { STUDIO_KEY } from './queries';

interface Props {
  onClose: () => void;
  onCreated: (project: Project) => void;
}

const ACCEPT = STUDIO_DOCUMENT_TYPES.map((t) => `.${t}`).join(',');

/** The file's name without its extension: the project's name when none is typed. */
function baseName(file: File): string {
  return file.name.replace(/\.[^.]+$/, '').trim() || file.name;
}

/** A new project: text pasted (plain or Markdown), or a document dropped or picked (txt, md, epub, docx). */
export function CreateProjectDialog({ onClose, onCreated }: Props) {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  const client = useQueryClient();
  const [mode, setMode] = useState<'paste' | 'import'>('paste');
  const [name, setName] = useState('');
  const [text, setText] = useState('');
  const [format, setFormat] = useState<PasteFormat>('markdown');
  const [file, setFile] = useState<File | null>(null);
  const [fileError, setFileError] = useState<string | null>(null);
  const [progress, setProgress] = useState<UploadProgress | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const abort = useRef<AbortController | null>(null);

  const take = (f: File) => {
    const ext = f.name.split('.').pop()?.toLowerCase() ?? '';
    if (!(STUDIO_DOCUMENT_TYPES as readonly string[]).includes(ext)) {
      setFileError(t('studio.wrongType'));
      setFile(null);
      return;
    }
    setFileError(null);
    setFile(f);
  };
  const projectName = name.trim() || (file && mode === 'import' ? baseName(file) : '');
  const ready = !!projectName && (mode === 'paste' ? text.trim() !== '' : !!file);

  const submit = async () => {
    if (!ready || busy) return;
    setBusy(true);
    setError(null);
    abort.current = new AbortController();
    try {
      const project =
        mode === 'paste'
          ? await createFromText(projectName, text, format)
          : await createFromFile(projectName, file!, setProgress, abort.current.signal);
      await client.invalidateQueries({ queryKey: [STUDIO_KEY] });
      onCreated(project);
    } catch (e) {
      if (!(e instanceof DOMException && e.name === 'AbortError')) setError(e);
    } finally {
      setBusy(false);
      setProgress(null);
    }
  };

  return (
    <Modal opened onClose={onClose} title={t('studio.createTitle')} size="lg" centered>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
        noValidate
      >
        <Stack data-testid="studio-create-dialog">
          <SegmentedControl
            fullWidth
            value={mode}
            onChange={(v) => setMode(v as 'paste' | 'import')}
            data={[
              { value: 'paste', label: t('studio.byPaste') },
              { value: 'import', label: t('studio.byImport') },
            ]}
            data-testid="studio-create-mode"
          />
          <TextInput
            label={t('studio.name')}
            placeholder={mode === 'import' && file ? baseName(file) : t('studio.namePlaceholder')}
            value={name}
            maxLength={STUDIO_LIMITS.nameMaxLength}
            onChange={(e) => setName(e.currentTarget.value)}
            data-testid="studio-create-name"
          />
          {mode === 'paste' ? (
            <>
              <SegmentedControl
                value={format}
                onChange={(v) => setFormat(v as PasteFormat)}
                data={[
                  { value: 'markdown', label: t('studio.formatMarkdown') },
                  { value: 'plain', label: t('studio.formatPlain') },
                ]}
                aria-label={t('studio.format')}
                data-testid="studio-create-format"
              />
              <Textarea
                label={t('studio.text')}
                placeholder={t('studio.textPlaceholder')}
                autosize
                minRows={6}
                maxRows={14}
                value={text}
                onChange={(e) => setText(e.currentTarget.value)}
                data-testid="studio-create-text"
              />
            </>
          ) : (
            <>
              <FileDrop
                prefix="studio-import"
                title={t('studio.dropTitle')}
                body={t('studio.dropBody', { size: formatBytes(STUDIO_LIMITS.fileMaxBytes, ui) })}
                accept={ACCEPT}
                onFile={take}
                uploading={busy}
                progress={progress}
                uploadingText={t('studio.uploading', { name: file?.name ?? '' })}
                workingText={t('studio.reading')}
                onCancel={() => abort.current?.abort()}
                fileError={fileError}
                icon={<IconFileText size={24} />}
              />
              {file && (
                <Text size="sm" data-testid="studio-import-chosen" style={{ overflowWrap: 'anywhere' }}>
                  {t('studio.chosenFile', { name: file.name, size: formatBytes(file.size, ui) })}
                </Text>
              )}
            </>
          )}
          <Text size="xs" c="dimmed">
            {t('studio.chaptersHint')}
          </Text>
          {error !== null && (
            <Alert color="red" variant="light" role="alert" data-testid="studio-create-error">
              {describeError(error, ui, t('errors.network'))}
            </Alert>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              {t('common.cancel')}
            </Button>
            <Button type="submit" loading={busy} disabled={!ready} data-testid="studio-create-submit">
              {t('studio.submit')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
