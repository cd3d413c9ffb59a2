import { Center, Loader, SimpleGrid, Stack } from '@mantine/core';
import { IconCpu } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { EmptyState } from '../../../components/EmptyState';
import { PageHeader } from '../../../components/PageHeader';
import { useTtsConfig } from '../../../speech/useTtsConfig';
import { ModelCard } from './ModelCard';

export function ModelsPage() {
  const { t } = useTranslation();
  const config = useTtsConfig();
  const models = config.data?.models;
  return (
    <Stack data-testid="models-page">
      <PageHeader title={t('models.title')} description={t('models.description')} />
      {!models ? (
        <Center py="xl">
          <Loader />
        </Center>
      ) : models.length === 0 ? (
        <EmptyState icon={<IconCpu size={26} />} title={t('models.emptyTitle')} body={t('models.emptyBody')} />
      ) : (
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
          {models.map((m) => (
            <ModelCard key={m.model} model={m} />
          ))}
        </SimpleGrid>
      )}
    </Stack>
  );
}
