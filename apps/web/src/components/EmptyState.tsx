import type { ReactNode } from 'react';
import { Paper, Stack, Text, ThemeIcon } from '@mantine/core';
import { IconInbox } from '@tabler/icons-react';

interface Props {
  title: string;
  body: string;
  icon?: ReactNode;
  action?: ReactNode;
  bordered?: boolean;
}

/** What a page shows while it has nothing to list: never placeholder data. */
export function EmptyState({ title, body, icon, action, bordered = true }: Props) {
  return (
    <Paper withBorder={bordered} radius="md" p="xl" data-testid="empty-state">
      <Stack align="center" gap="xs" py="lg">
        <ThemeIcon size={48} radius="xl" variant="light" color="violet">
          {icon ?? <IconInbox size={26} />}
        </ThemeIcon>
        <Text fw={600} ta="center">
          {title}
        </Text>
        <Text size="sm" c="dimmed" ta="center" maw={460}>
          {body}
        </Text>
        {action}
      </Stack>
    </Paper>
  );
}
