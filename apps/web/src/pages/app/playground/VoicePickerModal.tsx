import { useState } from 'react';
import { Button, Modal } from '@mantine/core';
import { IconCheck } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import type { Voice } from '../../../speech/api';
import { previewPlayer } from '../../../speech/preview-audio';
import { VOICES_PAGE_SIZE, type VoiceFilters } from '../../../speech/voice-query';
import { VoiceBrowser } from '../voices/VoiceBrowser';

/** As many a page as the voices page. */
export const PICKER_PAGE_SIZE = VOICES_PAGE_SIZE;

interface Props {
  opened: boolean;
  onClose: () => void;
  selectedId: string | undefined;
  onSelect: (voice: Voice) => void;
  /**
   * Filters to open with (the language warning opens it on the text's language). The picker keeps the
   * filters and page it was closed with while this object stays the same; a new object starts over.
   */
  initialFilters: VoiceFilters;
}

interface Browse {
  filters: VoiceFilters;
  page: number;
}

/** The library in a dialog: the voices page's filters and rows, with "use this voice". */
export function VoicePickerModal({ opened, onClose, selectedId, onSelect, initialFilters }: Props) {
  const { t } = useTranslation();
  const [browse, setBrowse] = useState<Browse>({ filters: initialFilters, page: 1 });
  const [from, setFrom] = useState(initialFilters);
  if (from !== initialFilters) {
    setFrom(initialFilters);
    setBrowse({ filters: initialFilters, page: 1 });
  }
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
          browse={browse}
          onBrowse={setBrowse}
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

function PickerBody({
  browse: { filters, page },
  onBrowse,
  selectedId,
  onSelect,
}: Pick<Props, 'selectedId' | 'onSelect'> & { browse: Browse; onBrowse: (next: Browse) => void }) {
  const { t } = useTranslation();
  return (
    <div data-testid="voice-picker">
      <VoiceBrowser
        filters={filters}
        page={page}
        pageSize={PICKER_PAGE_SIZE}
        selectedId={selectedId}
        onChange={(next, nextPage) => onBrowse({ filters: next, page: nextPage })}
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
