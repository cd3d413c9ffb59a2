import { Alert, Button, Container, Paper, Text, Title } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { fetchDoc, type DocName } from '../api/docs';
import { describeError } from '../api/errors';
import { FullPageLoader } from '../components/FullPageLoader';
import { Markdown } from '../components/Markdown';
import { useLocaleChoice } from '../i18n/hooks';
import { stripLeadingTitle } from '../lib/doc-text';
import { useDocumentTitle } from '../lib/document-title';

/** /terms, /privacy, /updates: Markdown served by GET /docs/{name}, in the UI language (`lang`). */
export function DocPage({ name }: { name: DocName }) {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  const doc = useQuery({ queryKey: ['docs', name, ui], queryFn: () => fetchDoc(name), meta: { silent: true }, retry: 1 });
  useDocumentTitle(doc.data?.title ?? t(`footer.${name}`));

  return (
    <Container size="md" py="xl" data-testid={`doc-${name}`}>
      {doc.isPending && <FullPageLoader label={t('docs.loading')} />}
      {doc.isError && (
        <Alert color="red" icon={<IconAlertTriangle size={18} />} title={t('docs.errorTitle')} data-testid="doc-error">
          <Text size="sm" mb="sm">
            {describeError(doc.error, ui, t('errors.network'))}
          </Text>
          <Button size="xs" variant="light" color="red" onClick={() => void doc.refetch()} loading={doc.isFetching}>
            {t('common.retry')}
          </Button>
        </Alert>
      )}
      {doc.data && (
        <Paper withBorder radius="md" p={{ base: 'md', sm: 'xl' }} component="article">
          <Title order={1} mb={4} data-testid="doc-title">
            {doc.data.title}
          </Title>
          {/* The documents state their own "last updated" date; the file's time would repeat it, wrongly. */}
          <Markdown source={stripLeadingTitle(doc.data.content, doc.data.title)} />
        </Paper>
      )}
    </Container>
  );
}
