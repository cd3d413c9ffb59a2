import { useEffect } from 'react';
import { Button, Container, Stack, Text, Title } from '@mantine/core';
import { useRouteError } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '@polyvox/contracts';
import { currentUiLocale } from '../i18n';

/** A render error anywhere in the tree: say so plainly and offer a reload. */
export function RouteError() {
  const { t } = useTranslation();
  const error = useRouteError();
  useEffect(() => {
    void import('../lib/stats-instance').then(({ stats }) => stats.error(error));
  }, [error]);
  return (
    <Container size="sm" py={96}>
      <Stack align="center" ta="center">
        <Title order={1} size="h2">
          {errorMessage('INTERNAL', currentUiLocale())}
        </Title>
        <Text c="dimmed">Polyvox</Text>
        <Button onClick={() => window.location.reload()}>{t('common.retry')}</Button>
      </Stack>
    </Container>
  );
}
