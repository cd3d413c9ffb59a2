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
    { to: '/updates', label: t('footer.updates') },
    { to: '/terms', label: t('footer.terms') },
    { to: '/privacy', label: t('footer.privacy') },
  ];
  return (
    <Container size="lg" py="xl" component="footer">
      <Group justify="space-between">
        <Text size="sm" c="dimmed">
          {t('footer.rights', { year: YEAR })}
        </Text>
        <Group gap="lg">
          {links.map((l) => (
            <Anchor key={l.to} component={Link} to={l.to} size="sm" c="dimmed">
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
