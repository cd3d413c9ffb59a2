import { useState } from 'react';
import { Button, Modal } from '@mantine/core';
import { IconCheck } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import type { Voice } from '../../../speech/api';
import { previewPlayer } from '../../../speech/preview-audio';
import type { VoiceFilters } from '../../../speech/voice-query';
import { VoiceBrowser } from '../voices/VoiceBrowser';

export const PICKER_PAGE_SIZE = 10;

interface Props {
  opened: boolean;
  onClose: () => void;
  selectedId: string | undefined;
  onSelect: (voice: Voice) => void;
  /** Filters to open with (the language warning opens it on the text's language). */
  initialFilters: VoiceFilters;
}

/** The library in a dialog: the voices page's filters and rows, with "use this voice". */
export function VoicePickerModal({ opened, onClose, selectedId, onSelect, initialFilters }: Props) {
  const { t } = useTranslation();
  return (
    <Modal
      opened={opened}
      onClose={() => {
        previewPlayer.stop();
        onClose();
      }}
      title={t('voicePicker.title')}
      size={920}
      centered
    >
      {opened && (
        <PickerBody
          initialFilters={initialFilters}
          selectedId={selectedId}
          onSelect={(voice) => {
            previewPlayer.stop();
            onSelect(voice);
          }}
        />
      )}
    </Modal>
  );
}

function PickerBody({ initialFilters, selectedId, onSelect }: Omit<Props, 'opened' | 'onClose'>) {
  const { t } = useTranslation();
  const [filters, setFilters] = useState<VoiceFilters>(initialFilters);
  const [page, setPage] = useState(1);
  return (
    <div data-testid="voice-picker">
      <VoiceBrowser
        filters={filters}
        page={page}
        pageSize={PICKER_PAGE_SIZE}
        selectedId={selectedId}
        onChange={(next, nextPage) => {
          setFilters(next);
          setPage(nextPage);
        }}
        action={(voice) =>
          voice.id === selectedId ? (
            <Button
              size="xs"
              variant="filled"
              leftSection={<IconCheck size={14} />}
              onClick={() => onSelect(voice)}
              data-testid="voice-selected"
            >
              {t('voicePicker.selected')}
            </Button>
          ) : (
            <Button size="xs" variant="light" onClick={() => onSelect(voice)} data-testid="voice-select">
              {t('voicePicker.select')}
            </Button>
          )
        }
      />
    </div>
  );
}
