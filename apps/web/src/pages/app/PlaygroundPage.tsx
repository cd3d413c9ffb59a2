import { useState } from 'react';
import { Button, Grid, Group, Paper, Select, Stack, Text, Textarea } from '@mantine/core';
import { IconVolume } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { LIMITS } from '@polyvox/contracts';
import { ComingSoon } from '../../components/ComingSoon';
import { EmptyState } from '../../components/EmptyState';
import { PageHeader } from '../../components/PageHeader';

export function PlaygroundPage() {
  const { t } = useTranslation();
  const [text, setText] = useState('');
  return (
    <Stack data-testid="playground-page">
      <PageHeader title={t('playground.title')} description={t('playground.description')} />
      <Grid>
        <Grid.Col span={{ base: 12, md: 8 }}>
          <Paper withBorder radius="md" p="lg">
            <Textarea
              label={t('playground.text')}
              placeholder={t('playground.textPlaceholder')}
              autosize
              minRows={8}
              maxLength={LIMITS.maxTextLength}
              value={text}
              onChange={(e) => setText(e.currentTarget.value)}
            />
            <Group justify="space-between" mt="sm">
              <Text size="xs" c="dimmed">
                {text.length} / {LIMITS.maxTextLength}
              </Text>
              <ComingSoon>
                <Button disabled>{t('playground.generate')}</Button>
              </ComingSoon>
            </Group>
          </Paper>
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 4 }}>
          <Stack>
            <Select label={t('playground.voice')} data={[]} disabled placeholder={t('common.comingSoon')} />
            <EmptyState icon={<IconVolume size={26} />} title={t('playground.emptyTitle')} body={t('playground.emptyBody')} />
          </Stack>
        </Grid.Col>
      </Grid>
    </Stack>
  );
}
