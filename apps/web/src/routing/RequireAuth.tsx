import { Navigate, Outlet, useLocation } from 'react-router-dom';
import { useAuth } from '../app/ServicesContext';
import { LoadingScreen } from '../layout/LoadingScreen';

/** Protected area: wait for the session to be restored, else send to sign-in (spec §2). */
export function RequireAuth() {
  const { status } = useAuth();
  const location = useLocation();
  if (status === 'initialising') return <LoadingScreen />;
  if (status === 'unauthenticated') {
    return <Navigate to="/session/signin" replace state={{ from: `${location.pathname}${location.search}` }} />;
  }
  return <Outlet />;
}
