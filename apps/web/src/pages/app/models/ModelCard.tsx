import { Avatar, Badge, Button, Card, Group, SimpleGrid, Stack, Text, Tooltip } from '@mantine/core';
import { IconArrowRight } from '@tabler/icons-react';
import { Link } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { useLocaleChoice } from '../../../i18n/hooks';
import { formatNumber } from '../../../lib/format';
import type { ModelInfo } from '../../../speech/api';
import { languageSummary } from '../../../speech/languages';
import { isGender, voicesPath } from '../../../speech/voice-query';

function Fact({ label, value, testId }: { label: string; value: string; testId: string }) {
  return (
    <Stack gap={0}>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text fw={600} data-testid={testId}>
        {value}
      </Text>
    </Stack>
  );
}

/** One model: what it is, how many languages and voices, its genders and price, and its voices. */
export function ModelCard({ model }: { model: ModelInfo }) {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  const sample = languageSummary(model.languages, ui, 6);
  const gender = (sex: string) => (isGender(sex) ? t(`genders.${sex}`) : sex);
  return (
    <Card withBorder radius="md" padding="lg" data-testid="model-card" data-model={model.model}>
      <Group justify="space-between" wrap="nowrap" mb="xs">
        <Group gap="sm" wrap="nowrap">
          <Avatar src={model.icon} alt="" radius="md" />
          <Text fw={700} size="lg" data-testid="model-name">
            {model.model_name}
          </Text>
        </Group>
        {model.type.includes('mixing') && (
          <Badge variant="light" color="grape">
            {t('models.mixing')}
          </Badge>
        )}
      </Group>
      <Text size="sm" c="dimmed" mih={40}>
        {model.description}
      </Text>
      <SimpleGrid cols={3} mt="md">
        <Fact label={t('models.languages')} value={formatNumber(model.languages.length, ui)} testId="model-languages" />
        <Fact label={t('models.voices')} value={formatNumber(model.voice_count, ui)} testId="model-voices" />
        <Fact label={t('models.price')} value={formatNumber(model.credits_per_character, ui)} testId="model-price" />
      </SimpleGrid>
      <Text size="xs" c="dimmed" mt="sm" lineClamp={1} title={model.languages.join(', ')}>
        {sample.text}
        {sample.more > 0 ? ` +${sample.more}` : ''}
      </Text>
      <Group justify="space-between" mt="md" wrap="nowrap">
        <Group gap={6} aria-label={t('models.genders')} data-testid="model-genders">
          {model.sexs.map((s) => (
            <Tooltip key={s.sex} label={gender(s.sex)}>
              <Avatar src={s.icon} alt={gender(s.sex)} size="sm" radius="xl" data-sex={s.sex} />
            </Tooltip>
          ))}
        </Group>
        <Button
          component={Link}
          to={voicesPath({ model: model.model })}
          variant="light"
          rightSection={<IconArrowRight size={16} />}
          data-testid="model-browse"
        >
          {t('models.browse')}
        </Button>
      </Group>
    </Card>
  );
}
