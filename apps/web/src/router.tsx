import { lazy, Suspense, type ComponentType, type ReactNode } from 'react';
import { createHashRouter, Navigate } from 'react-router-dom';
import { AppGuard, PublicGuard } from './auth/Guards';
import { FullPageLoader } from './components/FullPageLoader';
import { PublicLayout } from './layout/PublicLayout';
import { Root } from './layout/Root';
import { RouteError } from './layout/RouteError';
import { HomePage } from './pages/HomePage';
import { NotFoundPage } from './pages/NotFoundPage';

/**
 * The home page and the shell load at once; every other page is its own chunk, fetched when its
 * route is opened, so the first page does not carry the console, the waveform or the Markdown renderer.
 */
function page<M>(load: () => Promise<M>, pick: (m: M) => ComponentType<Record<string, never>>) {
  return lazy(async () => ({ default: pick(await load()) }));
}

const ConsoleLayout = page(
  () => import('./layout/ConsoleLayout'),
  (m) => m.ConsoleLayout,
);
const DocPage = lazy(async () => ({ default: (await import('./pages/DocPage')).DocPage }));
const pricingPage = () => import('./pages/PricingPage');
const PublicPricingPage = page(pricingPage, (m) => m.PublicPricingPage);
const economyPages = () => import('./pages/app/economy');
const ApiKeysPage = page(economyPages, (m) => m.ApiKeysPage);
const AppPricingPage = page(pricingPage, (m) => m.PricingContent);
const OrdersPage = page(economyPages, (m) => m.OrdersPage);
const OrderResultPage = page(economyPages, (m) => m.OrderResultPage);
const UsagePage = page(economyPages, (m) => m.UsagePage);
const DashboardPage = page(
  () => import('./pages/app/DashboardPage'),
  (m) => m.DashboardPage,
);
const MyVoicesPage = page(
  () => import('./pages/app/LibraryPages'),
  (m) => m.MyVoicesPage,
);
const MixPage = page(
  () => import('./pages/app/design/MixPage'),
  (m) => m.MixPage,
);
const PronunciationPage = page(
  () => import('./pages/app/pronunciation/PronunciationPage'),
  (m) => m.PronunciationPage,
);
const HistoryPage = page(
  () => import('./pages/app/history/HistoryPage'),
  (m) => m.HistoryPage,
);
const ModelsPage = page(
  () => import('./pages/app/models/ModelsPage'),
  (m) => m.ModelsPage,
);
const PlaygroundPage = page(
  () => import('./pages/app/playground/PlaygroundPage'),
  (m) => m.PlaygroundPage,
);
const ProfilePage = page(
  () => import('./pages/app/ProfilePage'),
  (m) => m.ProfilePage,
);
const TextToVoicePage = page(
  () => import('./pages/app/TextToVoicePage'),
  (m) => m.TextToVoicePage,
);
const VoicesPage = page(
  () => import('./pages/app/voices/VoicesPage'),
  (m) => m.VoicesPage,
);
const checkPages = () => import('./pages/check/CheckAudioPage');
const PublicCheckAudioPage = page(checkPages, (m) => m.PublicCheckAudioPage);
const CheckAudioPage = page(checkPages, (m) => m.CheckAudioContent);
const reportPages = () => import('./pages/report/ReportPage');
const ReportPage = page(reportPages, (m) => m.ReportPage);
const AppReportPage = page(reportPages, (m) => m.ReportContent);
const StudioListPage = page(
  () => import('./pages/app/studio/StudioListPage'),
  (m) => m.StudioListPage,
);
const ProjectPage = page(
  () => import('./pages/app/studio/ProjectPage'),
  (m) => m.ProjectPage,
);
const DialoguePage = page(
  () => import('./pages/app/dialogue/DialoguePage'),
  (m) => m.DialoguePage,
);
const VoiceCloningPage = page(
  () => import('./pages/app/VoiceCloningPage'),
  (m) => m.VoiceCloningPage,
);

// The operator console (#/admin/…): its own chunks, never on a customer's page.
const AdminApp = page(
  () => import('./admin/loader'),
  (m) => m.AdminApp,
);

function Load({ children }: { children: ReactNode }) {
  return <Suspense fallback={<FullPageLoader />}>{children}</Suspense>;
}

export const router = createHashRouter([
  {
    element: <Root />,
    errorElement: <RouteError />,
    children: [
      {
        element: <PublicLayout />,
        children: [
          {
            index: true,
            element: (
              <PublicGuard>
                <HomePage />
              </PublicGuard>
            ),
          },
          {
            path: 'pricing',
            element: (
              <PublicGuard>
                <Load>
                  <PublicPricingPage />
                </Load>
              </PublicGuard>
            ),
          },
          {
            path: 'check',
            element: (
              <PublicGuard>
                <Load>
                  <PublicCheckAudioPage />
                </Load>
              </PublicGuard>
            ),
          },
          {
            // Open to everyone, signed in or not: a victim needs no account to complain.
            path: 'report',
            element: (
              <Load>
                <ReportPage />
              </Load>
            ),
          },
          {
            path: 'terms',
            element: (
              <Load>
                <DocPage key="terms" name="terms" />
              </Load>
            ),
          },
          {
            path: 'privacy',
            element: (
              <Load>
                <DocPage key="privacy" name="privacy" />
              </Load>
            ),
          },
          {
            path: 'updates',
            element: (
              <Load>
                <DocPage key="updates" name="updates" />
              </Load>
            ),
          },
          { path: '*', element: <NotFoundPage /> },
        ],
      },
      {
        path: 'admin/*',
        element: (
          <AppGuard>
            <Load>
              <AdminApp />
            </Load>
          </AppGuard>
        ),
      },
      {
        path: 'app',
        element: (
          <AppGuard>
            <Load>
              <ConsoleLayout />
            </Load>
          </AppGuard>
        ),
        children: [
          { index: true, element: <Navigate to="dashboard" replace /> },
          {
            path: 'dashboard',
            element: (
              <Load>
                <DashboardPage />
              </Load>
            ),
          },
          {
            path: 'history',
            element: (
              <Load>
                <HistoryPage />
              </Load>
            ),
          },
          {
            path: 'playground',
            element: (
              <Load>
                <PlaygroundPage />
              </Load>
            ),
          },
          {
            path: 'text-to-voice',
            element: (
              <Load>
                <TextToVoicePage />
              </Load>
            ),
          },
          {
            path: 'voice-cloning',
            element: (
              <Load>
                <VoiceCloningPage />
              </Load>
            ),
          },
          {
            path: 'mix',
            element: (
              <Load>
                <MixPage />
              </Load>
            ),
          },
          {
            path: 'studio',
            element: (
              <Load>
                <StudioListPage />
              </Load>
            ),
          },
          {
            path: 'studio/:projectId',
            element: (
              <Load>
                <ProjectPage />
              </Load>
            ),
          },
          {
            path: 'dialogue',
            element: (
              <Load>
                <DialoguePage />
              </Load>
            ),
          },
          {
            path: 'my-voices',
            element: (
              <Load>
                <MyVoicesPage />
              </Load>
            ),
          },
          {
            path: 'pronunciation',
            element: (
              <Load>
                <PronunciationPage />
              </Load>
            ),
          },
          {
            path: 'models',
            element: (
              <Load>
                <ModelsPage />
              </Load>
            ),
          },
          {
            path: 'voices',
            element: (
              <Load>
                <VoicesPage />
              </Load>
            ),
          },
          {
            path: 'pricing',
            element: (
              <Load>
                <AppPricingPage />
              </Load>
            ),
          },
          {
            path: 'usage',
            element: (
              <Load>
                <UsagePage />
              </Load>
            ),
          },
          {
            path: 'orders',
            element: (
              <Load>
                <OrdersPage />
              </Load>
            ),
          },
          {
            path: 'orders/:id/result',
            element: (
              <Load>
                <OrderResultPage />
              </Load>
            ),
          },
          {
            path: 'my-profile',
            element: (
              <Load>
                <ProfilePage />
              </Load>
            ),
          },
          {
            path: 'report',
            element: (
              <Load>
                <AppReportPage />
              </Load>
            ),
          },
          {
            path: 'check',
            element: (
              <Load>
                <CheckAudioPage />
              </Load>
            ),
          },
          {
            path: 'api-keys',
            element: (
              <Load>
                <ApiKeysPage />
              </Load>
            ),
          },
          { path: '*', element: <NotFoundPage /> },
        ],
      },
    ],
  },
]);
