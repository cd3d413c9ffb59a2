import { lazy, Suspense, useState } from 'react';
import { useSignIn } from './SignInContext';

const SignInForm = lazy(async () => ({ default: (await import('./SignInForm')).SignInForm }));

/**
 * Loaded on first use, so the first page does not carry the form. Rebuilt on every sign-out, so
 * the next user never sees the previous one's email, tick or countdown.
 */
export function SignInModal() {
  const { epoch, opened } = useSignIn();
  const [used, setUsed] = useState(opened);
  if (opened && !used) setUsed(true);
  if (!used) return null;
  return (
    <Suspense fallback={null}>
      <SignInForm key={epoch} />
    </Suspense>
  );
}
