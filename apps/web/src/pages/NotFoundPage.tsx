import { Button, Container, Stack, Text, Title } from '@mantine/core';
import { Link } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { useDocumentTitle } from '../lib/document-title';

export function NotFoundPage() {
  const { t } = useTranslation();
  useDocumentTitle(t('notFound.title'));
  return (
    <Container size="sm" py={96} data-testid="not-found">
      <Stack align="center" ta="center" gap="md">
        <Text fz={72} fw={800} c="violet.5" lh={1}>
          404
        </Text>
        <Title order={1} size="h2">
          {t('notFound.title')}
        </Title>
        <Text c="dimmed">{t('notFound.body')}</Text>
        <Button component={Link} to="/" variant="light">
          {t('common.backHome')}
        </Button>
      </Stack>
    </Container>
  );
}
