import { lazy, Suspense } from 'react';
import { Button, Card, Container, Group, SimpleGrid, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { IconArrowRight, IconCode, IconMicrophone, IconSparkles, IconWand, IconWaveSine } from '@tabler/icons-react';
import { Link } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { useSignIn } from '../auth/SignInContext';
import { useDocumentTitle } from '../lib/document-title';

// The box (its player and waveform) loads after the page: the first paint stays light.
const TryIt = lazy(async () => ({ default: (await import('./home/TryIt')).TryIt }));

const FEATURES = [
  { icon: IconWaveSine, title: 'home.featureTtsTitle', body: 'home.featureTtsBody' },
  { icon: IconSparkles, title: 'home.featureDesignTitle', body: 'home.featureDesignBody' },
  { icon: IconMicrophone, title: 'home.featureCloneTitle', body: 'home.featureCloneBody' },
  { icon: IconWand, title: 'home.featureMixTitle', body: 'home.featureMixBody' },
  { icon: IconCode, title: 'home.featureApiTitle', body: 'home.featureApiBody' },
] as const;

export function HomePage() {
  const { t } = useTranslation();
  const signIn = useSignIn();
  useDocumentTitle(t('home.heroTitle'));
  return (
    <Container size="lg" py={64} data-testid="home-page">
      <Stack align="center" gap="lg" maw={760} mx="auto" ta="center">
        <Title order={1} fz={{ base: 36, sm: 52 }} style={{ letterSpacing: '-0.03em', lineHeight: 1.1 }}>
          {t('home.heroTitle')}
        </Title>
        <Text size="lg" c="dimmed">
          {t('home.heroBody')}
        </Text>
        <Text fw={600} c="violet" data-testid="home-official-voices">
          {t('home.officialVoices')}
        </Text>
        <Group justify="center">
          <Button
            size="md"
            rightSection={<IconArrowRight size={18} />}
            onClick={() => signIn.open('/app/dashboard')}
            data-testid="home-get-started"
          >
            {t('home.getStarted')}
          </Button>
          <Button size="md" variant="default" component={Link} to="/pricing">
            {t('home.viewPricing')}
          </Button>
        </Group>
      </Stack>
      <Suspense fallback={null}>
        <TryIt />
      </Suspense>
      <SimpleGrid cols={{ base: 1, sm: 2, md: 3 }} mt={64} spacing="lg">
        {FEATURES.map(({ icon: Icon, title, body }) => (
          <Card key={title} withBorder radius="md" padding="lg">
            <ThemeIcon size={40} radius="md" variant="light" color="violet" mb="md">
              <Icon size={22} />
            </ThemeIcon>
            <Text fw={600} mb={4}>
              {t(title)}
            </Text>
            <Text size="sm" c="dimmed">
              {t(body)}
            </Text>
          </Card>
        ))}
      </SimpleGrid>
    </Container>
  );
}
