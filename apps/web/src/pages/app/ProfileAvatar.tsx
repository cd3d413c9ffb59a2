import { useState } from 'react';
import { Avatar, Button, FileButton, Group, Stack, Text } from '@mantine/core';
import { IconUpload } from '@tabler/icons-react';
import { useMutation } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { LIMITS } from '@polyvox/contracts';
import { updateProfile, uploadAvatar, type Account } from '../../api/accounts';
import { ME_KEY } from '../../auth/session-controller';
import { AVATAR_ACCEPT, checkAvatar, type AvatarProblem } from '../../lib/avatar';
import { formatBytes } from '../../lib/format';
import { useLocaleChoice } from '../../i18n/hooks';
import { notifySuccess } from '../../lib/notify';
import { queryClient } from '../../lib/query-client';

export function ProfileAvatar({ account }: { account: Account }) {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  const avatarLimit = formatBytes(LIMITS.avatarMaxBytes, ui);
  const [problem, setProblem] = useState<AvatarProblem | null>(null);
  const upload = useMutation({
    mutationFn: async (file: File) => {
      const { url } = await uploadAvatar(file);
      return updateProfile({ avatar: url });
    },
    onSuccess: (next) => {
      queryClient.setQueryData(ME_KEY, next);
      notifySuccess(t('profile.avatarSaved'));
    },
  });

  function onFile(file: File | null) {
    if (!file) return;
    const found = checkAvatar(file);
    setProblem(found);
    if (!found) upload.mutate(file);
  }

  const label = account.name || account.email || '?';
  return (
    <Group gap="lg" wrap="nowrap">
      <Avatar src={account.avatar} size={88} radius={88} color="violet" alt={label} data-testid="profile-avatar">
        {label.slice(0, 1).toUpperCase()}
      </Avatar>
      <Stack gap={6}>
        <FileButton onChange={onFile} accept={AVATAR_ACCEPT}>
          {(props) => (
            <Button
              {...props}
              variant="default"
              leftSection={<IconUpload size={16} />}
              loading={upload.isPending}
              data-testid="profile-avatar-upload"
            >
              {t('profile.changeAvatar')}
            </Button>
          )}
        </FileButton>
        <Text size="xs" c={problem ? 'red' : 'dimmed'} data-testid="profile-avatar-hint">
          {problem === 'type'
            ? t('profile.avatarType')
            : problem === 'size'
              ? t('profile.avatarSize', { limit: avatarLimit })
              : t('profile.avatarHint', { limit: avatarLimit })}
        </Text>
      </Stack>
    </Group>
  );
}
