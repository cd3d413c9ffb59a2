import { useEffect, useRef, useState, type ReactNode } from 'react';
import { Group, Table, Text } from '@mantine/core';
import { IconArrowsHorizontal } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';

/**
 * A table wider than a phone: it scrolls sideways inside its own box, and while the box is narrower than the
 * table a line above it says so, so the columns past the edge are not taken for missing.
 */
export function WideTable({ minWidth, children }: { minWidth: number; children: ReactNode }) {
  const { t } = useTranslation();
  const box = useRef<HTMLDivElement>(null);
  const [narrow, setNarrow] = useState(false);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const check = () => setNarrow(element.clientWidth < minWidth);
    check();
    const observer = new ResizeObserver(check);
    observer.observe(element);
    return () => observer.disconnect();
  }, [minWidth]);
  return (
    <div ref={box}>
      {narrow && (
        <Group gap={6} px="sm" pt="xs" wrap="nowrap" data-testid="table-scroll-hint">
          <IconArrowsHorizontal size={14} aria-hidden="true" />
          <Text size="xs" c="dimmed">
            {t('common.scrollSideways')}
          </Text>
        </Group>
      )}
      <Table.ScrollContainer minWidth={minWidth}>{children}</Table.ScrollContainer>
    </div>
  );
}
