import { Group, Text, UnstyledButton } from '@mantine/core';
import { Link } from 'react-router-dom';

export function Logo() {
  return (
    <UnstyledButton component={Link} to="/" data-testid="logo" aria-label="Polyvox">
      <Group gap={8} wrap="nowrap">
        <svg width="28" height="28" viewBox="0 0 32 32" aria-hidden="true">
          <rect width="32" height="32" rx="8" fill="var(--mantine-color-violet-7)" />
          <g fill="#fff">
            <rect x="6" y="13" width="3" height="6" rx="1.5" />
            <rect x="11" y="9" width="3" height="14" rx="1.5" />
            <rect x="16" y="5" width="3" height="22" rx="1.5" />
            <rect x="21" y="10" width="3" height="12" rx="1.5" />
          </g>
        </svg>
        <Text fw={800} size="lg" style={{ letterSpacing: '-0.02em' }}>
          Polyvox
        </Text>
      </Group>
    </UnstyledButton>
  );
}
