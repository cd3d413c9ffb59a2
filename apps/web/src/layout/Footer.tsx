import { Anchor, Container, Group, Text } from '@mantine/core';
import { Link } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { guideUrl } from '../lib/guide';

const YEAR = String(new Date().getFullYear());

export function Footer() {
  const { t, i18n } = useTranslation();
  const links = [
    { to: '/pricing', label: t('footer.pricing') },
    { to: '/check', label: t('nav.check') },
    { to: '/report', label: t('report.link') },
    { to: '/updates', label: t('footer.updates') },
    { to: '/terms', label: t('footer.terms') },
    { to: '/privacy', label: t('footer.privacy') },
  ];
  return (
    <Container size="lg" py="xl" component="footer">
      <Group justify="space-between" gap="sm">
        <Text size="sm" c="dimmed">
          {t('footer.rights', { year: YEAR })}
        </Text>
        <Group gap="lg" data-testid="footer-links">
          {links.map((l) => (
            <Anchor
              key={l.to}
              component={Link}
              to={l.to}
              size="sm"
              c="dimmed"
              data-testid={l.to === '/report' ? 'footer-report' : undefined}
            >
              {l.label}
            </Anchor>
          ))}
          <Anchor href={guideUrl(i18n.language)} size="sm" c="dimmed" data-testid="footer-docs">
            {t('footer.docs')}
          </Anchor>
        </Group>
      </Group>
    </Container>
  );
}

/** The console's own footer (every /app page): the way to report misuse, and the documents. */
export function ConsoleFooter() {
  const { t } = useTranslation();
  const links = [
    { to: '/app/report', label: t('report.link'), testId: 'footer-report' },
    { to: '/terms', label: t('footer.terms') },
    { to: '/privacy', label: t('footer.privacy') },
  ];
  return (
    <Container size="lg" pb="xl" component="footer">
      <Group gap="lg">
        {links.map((l) => (
          <Anchor key={l.to} component={Link} to={l.to} size="sm" c="dimmed" data-testid={l.testId}>
            {l.label}
          </Anchor>
        ))}
      </Group>
    </Container>
  );
}
