import { useEffect } from 'react';
import { useDisclosure } from '@mantine/hooks';
import { useLocation } from 'react-router-dom';

/**
 * The phone menu's open state: it closes on Escape and whenever the route changes (a link, or the
 * browser's Back), so it never stays open over the page it led to.
 */
export function useNavMenu() {
  const [opened, handlers] = useDisclosure(false);
  // The location object itself: entries the router did not push (typed addresses, Back to them) all
  // carry the key "default", so the key alone would miss those changes.
  const location = useLocation();
  const { close } = handlers;
  useEffect(() => close(), [location, close]);
  useEffect(() => {
    if (!opened) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') close();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [opened, close]);
  return [opened, handlers] as const;
}
