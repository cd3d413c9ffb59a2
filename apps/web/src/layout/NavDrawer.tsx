import { Drawer } from '@mantine/core';
import { HeaderNav } from './HeaderNav';

/** The phone menu of the public pages. */
export function NavDrawer({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  return (
    <Drawer opened={opened} onClose={onClose} size="xs" hiddenFrom="md" title="Polyvox">
      <HeaderNav vertical onNavigate={onClose} />
    </Drawer>
  );
}
