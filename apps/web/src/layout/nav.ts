import type { ComponentType } from 'react';
import {
  IconChartBar,
  IconCpu,
  IconDiamond,
  IconKey,
  IconLayoutDashboard,
  IconMicrophone,
  IconReceipt,
  IconSparkles,
  IconUser,
  IconUserCircle,
  IconVolume,
  IconWaveSine,
} from '@tabler/icons-react';

export type NavKey =
  | 'dashboard'
  | 'playground'
  | 'textToVoice'
  | 'voiceCloning'
  | 'myVoices'
  | 'voices'
  | 'models'
  | 'usage'
  | 'orders'
  | 'apiKeys'
  | 'pricing'
  | 'profile';

export interface NavItem {
  key: NavKey;
  path: string;
  testId: string;
  icon: ComponentType<{ size?: number; stroke?: number }>;
}

const item = (key: NavKey, path: string, icon: NavItem['icon']): NavItem => ({
  key,
  path,
  icon,
  testId: `nav-${path.slice('/app/'.length)}`,
});

export const NAV: Record<NavKey, NavItem> = {
  dashboard: item('dashboard', '/app/dashboard', IconLayoutDashboard),
  playground: item('playground', '/app/playground', IconWaveSine),
  textToVoice: item('textToVoice', '/app/text-to-voice', IconSparkles),
  voiceCloning: item('voiceCloning', '/app/voice-cloning', IconMicrophone),
  myVoices: item('myVoices', '/app/my-voices', IconUserCircle),
  voices: item('voices', '/app/voices', IconVolume),
  models: item('models', '/app/models', IconCpu),
  usage: item('usage', '/app/usage', IconChartBar),
  orders: item('orders', '/app/orders', IconReceipt),
  apiKeys: item('apiKeys', '/app/api-keys', IconKey),
  pricing: item('pricing', '/app/pricing', IconDiamond),
  profile: item('profile', '/app/my-profile', IconUser),
};

/** The header menu, in the order the product lists it. */
export const HEADER_NAV: NavKey[] = ['models', 'dashboard', 'voices', 'myVoices', 'pricing', 'apiKeys'];

/** The console's side bar, grouped. */
export const SIDEBAR: ReadonlyArray<{ section: 'sectionCreate' | 'sectionLibrary' | 'sectionAccount'; items: NavKey[] }> = [
  { section: 'sectionCreate', items: ['playground', 'textToVoice', 'voiceCloning'] },
  { section: 'sectionLibrary', items: ['voices', 'myVoices', 'models'] },
  { section: 'sectionAccount', items: ['usage', 'orders', 'apiKeys', 'pricing', 'profile'] },
];
