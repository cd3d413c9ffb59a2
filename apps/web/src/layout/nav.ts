import type { ComponentType } from 'react';
import {
  IconChartBar,
  IconCpu,
  IconDiamond,
  IconKey,
  IconLayoutDashboard,
  IconMicrophone,
  IconAlphabetLatin,
  IconReceipt,
  IconShieldCheck,
  IconSparkles,
  IconUser,
  IconUserCircle,
  IconVolume,
  IconWaveSine,
  IconAdjustmentsHorizontal,
  IconBooks,
  IconMessages,
  IconHistory,
} from '@tabler/icons-react';

export type NavKey =
  | 'dashboard'
  | 'playground'
  | 'textToVoice'
  | 'voiceCloning'
  | 'mix'
  | 'studio'
  | 'dialogue'
  | 'myVoices'
  | 'pronunciation'
  | 'history'
  | 'voices'
  | 'models'
  | 'usage'
  | 'orders'
  | 'apiKeys'
  | 'pricing'
  | 'profile'
  | 'check';

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
  mix: item('mix', '/app/mix', IconAdjustmentsHorizontal),
  studio: item('studio', '/app/studio', IconBooks),
  dialogue: item('dialogue', '/app/dialogue', IconMessages),
  myVoices: item('myVoices', '/app/my-voices', IconUserCircle),
  pronunciation: item('pronunciation', '/app/pronunciation', IconAlphabetLatin),
  history: item('history', '/app/history', IconHistory),
  voices: item('voices', '/app/voices', IconVolume),
  models: item('models', '/app/models', IconCpu),
  usage: item('usage', '/app/usage', IconChartBar),
  orders: item('orders', '/app/orders', IconReceipt),
  apiKeys: item('apiKeys', '/app/api-keys', IconKey),
  pricing: item('pricing', '/app/pricing', IconDiamond),
  profile: item('profile', '/app/my-profile', IconUser),
  check: item('check', '/app/check', IconShieldCheck),
};

/** The header menu, in the order the product lists it. */
export const HEADER_NAV: NavKey[] = ['models', 'dashboard', 'voices', 'myVoices', 'pricing', 'apiKeys', 'check'];

/** Header entries with a public page of their own, where a visitor not signed in goes instead of the console's. */
export const PUBLIC_PATHS: Partial<Record<NavKey, string>> = { pricing: '/pricing', check: '/check' };

/** The console's side bar, grouped. */
export const SIDEBAR: ReadonlyArray<{
  section: 'sectionCreate' | 'sectionLibrary' | 'sectionTools' | 'sectionAccount';
  items: NavKey[];
}> = [
  { section: 'sectionCreate', items: ['playground', 'dialogue', 'studio', 'textToVoice', 'voiceCloning', 'mix', 'history'] },
  { section: 'sectionLibrary', items: ['voices', 'myVoices', 'pronunciation', 'models'] },
  { section: 'sectionTools', items: ['check'] },
  { section: 'sectionAccount', items: ['usage', 'orders', 'apiKeys', 'pricing', 'profile'] },
];
