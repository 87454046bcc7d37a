import { Navigate } from 'react-router-dom';
import { homePathForRole } from '@centralita/contracts';
import { useAuth } from '../app/ServicesContext';

/** `/` goes to the role's home: SUPER → supervisor dashboard, AGENT → agent dashboard (spec §2). */
export function RootRedirect() {
  const { user } = useAuth();
  return <Navigate to={homePathForRole(user?.role ?? '')} replace />;
}
