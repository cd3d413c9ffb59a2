import { Avatar, Badge, Button, Group, Menu, Text, UnstyledButton } from '@mantine/core';
import { IconCoins, IconLogout, IconUser } from '@tabler/icons-react';
import { useNavigate } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { useAccount, useSession } from '../auth/hooks';
import { session } from '../auth/session';
import { useSignIn } from '../auth/SignInContext';
import { useLocaleChoice } from '../i18n/hooks';
import { formatNumber } from '../lib/format';
import { notifyInfo } from '../lib/notify';

export function AccountMenu() {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  const navigate = useNavigate();
  const { status } = useSession();
  const { account, signedIn } = useAccount();
  const signIn = useSignIn();

  if (!signedIn || !account) {
    return (
      <Button size="sm" onClick={() => signIn.open()} disabled={status === 'booting'} data-testid="header-signin">
        {t('header.signIn')}
      </Button>
    );
  }

  async function signOut() {
    signIn.reset();
    const done = session.signOut();
    void navigate('/', { replace: true });
    await done;
    // The console page being left may have asked for sign-in as the account turned anonymous: the
    // user chose to leave, so nothing opens by itself.
    signIn.reset();
    notifyInfo(t('header.signedOut'));
  }

  const label = account.name || account.email || account.id;
  return (
    <Group gap="xs" wrap="nowrap">
      <Badge variant="light" color="violet" leftSection={<IconCoins size={12} />} visibleFrom="sm" data-testid="header-credits">
        {t('header.credits', { credits: formatNumber(account.vip.credits, ui) })}
      </Badge>
      <Menu position="bottom-end" width={240} shadow="md">
        <Menu.Target>
          <UnstyledButton aria-label={t('header.account')} data-testid="account-menu">
            <Avatar src={account.avatar} alt={label} radius="xl" size={32} color="violet">
              {label.slice(0, 1).toUpperCase()}
            </Avatar>
          </UnstyledButton>
        </Menu.Target>
        <Menu.Dropdown>
          <Menu.Label>
            <Text size="sm" fw={600} c="var(--mantine-color-text)" truncate data-testid="account-menu-email">
              {account.email}
            </Text>
          </Menu.Label>
          <Menu.Item
            leftSection={<IconUser size={16} />}
            onClick={() => void navigate('/app/my-profile')}
            data-testid="account-profile"
          >
            {t('header.profile')}
          </Menu.Item>
          <Menu.Divider />
          <Menu.Item
            color="red"
            leftSection={<IconLogout size={16} />}
            onClick={() => void signOut()}
            data-testid="account-signout"
          >
            {t('header.signOut')}
          </Menu.Item>
        </Menu.Dropdown>
      </Menu>
    </Group>
  );
}
