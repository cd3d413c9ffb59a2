import { createHashRouter, Navigate } from 'react-router-dom';
import { AppGuard, PublicGuard } from './auth/Guards';
import { ConsoleLayout } from './layout/ConsoleLayout';
import { PublicLayout } from './layout/PublicLayout';
import { Root } from './layout/Root';
import { RouteError } from './layout/RouteError';
import { DocPage } from './pages/DocPage';
import { HomePage } from './pages/HomePage';
import { NotFoundPage } from './pages/NotFoundPage';
import { PublicPricingPage } from './pages/PricingPage';
import { ApiKeysPage, AppPricingPage, OrdersPage, UsagePage } from './pages/app/AccountPages';
import { DashboardPage } from './pages/app/DashboardPage';
import { MyVoicesPage } from './pages/app/LibraryPages';
import { ModelsPage } from './pages/app/models/ModelsPage';
import { PlaygroundPage } from './pages/app/playground/PlaygroundPage';
import { ProfilePage } from './pages/app/ProfilePage';
import { TextToVoicePage } from './pages/app/TextToVoicePage';
import { VoicesPage } from './pages/app/voices/VoicesPage';
import { VoiceCloningPage } from './pages/app/VoiceCloningPage';

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
                <PublicPricingPage />
              </PublicGuard>
            ),
          },
          { path: 'terms', element: <DocPage key="terms" name="terms" /> },
          { path: 'privacy', element: <DocPage key="privacy" name="privacy" /> },
          { path: 'updates', element: <DocPage key="updates" name="updates" /> },
          { path: '*', element: <NotFoundPage /> },
        ],
      },
      {
        path: 'app',
        element: (
          <AppGuard>
            <ConsoleLayout />
          </AppGuard>
        ),
        children: [
          { index: true, element: <Navigate to="dashboard" replace /> },
          { path: 'dashboard', element: <DashboardPage /> },
          { path: 'playground', element: <PlaygroundPage /> },
          { path: 'text-to-voice', element: <TextToVoicePage /> },
          { path: 'voice-cloning', element: <VoiceCloningPage /> },
          { path: 'my-voices', element: <MyVoicesPage /> },
          { path: 'models', element: <ModelsPage /> },
          { path: 'voices', element: <VoicesPage /> },
          { path: 'pricing', element: <AppPricingPage /> },
          { path: 'usage', element: <UsagePage /> },
          { path: 'orders', element: <OrdersPage /> },
          { path: 'my-profile', element: <ProfilePage /> },
          { path: 'api-keys', element: <ApiKeysPage /> },
          { path: '*', element: <NotFoundPage /> },
        ],
      },
    ],
  },
]);
