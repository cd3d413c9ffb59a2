import { useEffect } from 'react';
import { Button, Group, Stack } from '@mantine/core';
import { IconArrowsShuffle, IconWaveSine } from '@tabler/icons-react';
import { Link, useSearchParams } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { PageHeader } from '../../../components/PageHeader';
import { previewPlayer } from '../../../speech/preview-audio';
import { filtersFromSearch, filtersToSearch, mixPath, playgroundPath } from '../../../speech/voice-query';
import { VoiceBrowser } from './VoiceBrowser';

/** The official library: filters and page live in the route (/app/voices?model=flite&page=2). */
export function VoicesPage() {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const { filters, page } = filtersFromSearch(params);

  useEffect(() => () => previewPlayer.stop(), []);

  return (
    <Stack data-testid="voices-page">
      <PageHeader title={t('voices.title')} description={t('voices.description')} />
      <VoiceBrowser
        filters={filters}
        page={page}
        onChange={(next, nextPage) => setParams(filtersToSearch(next, nextPage), { replace: true })}
        action={(voice) => (
          <Group gap={6} wrap="nowrap">
            {voice.mixable && (
              <Button
                component={Link}
                to={mixPath(voice.id)}
                variant="subtle"
                size="xs"
                leftSection={<IconArrowsShuffle size={14} />}
                data-testid="voice-mix"
              >
                {t('nav.mix')}
              </Button>
            )}
            <Button
              component={Link}
              to={playgroundPath(voice.id)}
              variant="light"
              size="xs"
              leftSection={<IconWaveSine size={14} />}
              data-testid="voice-use"
            >
              {t('voices.use')}
            </Button>
          </Group>
        )}
      />
    </Stack>
  );
}
