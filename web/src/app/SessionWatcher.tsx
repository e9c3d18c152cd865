import { useEffect } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useLocation, useNavigate } from 'react-router';
import { meKey } from '../api/auth';
import { markSessionEnded, onSessionLost } from '../api/session';

/** On any 401, drop cached data and go to the login page, remembering where the user was. */
export function SessionWatcher() {
  const navigate = useNavigate();
  const location = useLocation();
  const queryClient = useQueryClient();

  useEffect(
    () =>
      onSessionLost(() => {
        if (location.pathname === '/login') return;
        if (queryClient.getQueryData(meKey) !== undefined) markSessionEnded();
        queryClient.clear();
        navigate('/login', { replace: true, state: { from: location.pathname } });
      }),
    [navigate, location.pathname, queryClient],
  );
  return null;
}
