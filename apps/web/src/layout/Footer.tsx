import { Anchor, Container, Group, Text } from '@mantine/core';
import { Link } from 'react-router-dom';
import { useTranslation } from 'react-i18next';

const YEAR = String(new Date().getFullYear());

export function Footer() {
  const { t } = useTranslation();
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
        </Group>
      </Group>
    </Container>
  );
}
