import { Outlet } from 'react-router-dom';
import { SignInModal } from '../auth/SignInModal';
import { SignInProvider } from '../auth/SignInContext';

/** Inside the router, so the sign-in modal can navigate once the user is in. */
export function Root() {
  return (
    <SignInProvider>
      <Outlet />
      <SignInModal />
    </SignInProvider>
  );
}
