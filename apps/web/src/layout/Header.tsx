import { Burger, Group } from '@mantine/core';
import { AccountMenu } from './AccountMenu';
import { HeaderNav } from './HeaderNav';
import { LanguageMenu } from './LanguageMenu';
import { Logo } from './Logo';

interface Props {
  navOpened: boolean;
  onToggleNav: () => void;
  burgerLabel: string;
}

export function Header({ navOpened, onToggleNav, burgerLabel }: Props) {
  return (
    <Group h="100%" px="md" justify="space-between" wrap="nowrap">
      <Group gap="lg" wrap="nowrap">
        <Burger
          opened={navOpened}
          onClick={onToggleNav}
          hiddenFrom="md"
          size="sm"
          aria-label={burgerLabel}
          aria-expanded={navOpened}
          data-testid="nav-burger"
        />
        <Logo />
        <nav aria-label="main">
          <Group visibleFrom="md">
            <HeaderNav />
          </Group>
        </nav>
      </Group>
      <Group gap="xs" wrap="nowrap">
        <LanguageMenu />
        <AccountMenu />
      </Group>
    </Group>
  );
}
