import { BrowserBanner } from './BrowserBanner';
import { SessionBanner } from './SessionBanner';

export function Banners() {
  return (
    <>
      <SessionBanner />
      <BrowserBanner />
    </>
  );
}
