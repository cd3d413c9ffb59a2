import { Center, Loader, Stack, Text } from '@mantine/core';

export function FullPageLoader({ label }: { label?: string }) {
  return (
    <Center mih="50vh" data-testid="page-loading">
      <Stack align="center" gap="xs">
        <Loader color="violet" />
        {label && (
          <Text size="sm" c="dimmed">
            {label}
          </Text>
        )}
      </Stack>
    </Center>
  );
}
