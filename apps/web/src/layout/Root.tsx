import { Outlet } from 'react-router-dom';
import { SignInModal } from '../auth/SignInModal';
import { SignInProvider } from '../auth/SignInContext';
import { ModelConfigGate } from '../speech/ModelConfigGate';

/** Inside the router, so the sign-in modal can navigate once the user is in; the model config loads once here. */
export function Root() {
  return (
    <SignInProvider>
      <Outlet />
      <SignInModal />
      <ModelConfigGate />
    </SignInProvider>
  );
}
