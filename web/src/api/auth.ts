import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from './client';
import { call } from './errors';
import { clearSessionEnded } from './session';

export const meKey = ['auth', 'me'] as const;

/** Who is logged in; fails with a 401 ApiError when nobody is. */
export function useMe() {
  return useQuery({
    queryKey: meKey,
    queryFn: () => call(api.GET('/api/auth/me')),
    retry: false,
    staleTime: 5 * 60_000,
  });
}

export function useLogin() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { username: string; password: string }) => call(api.POST('/api/auth/login', { body })),
    onSuccess: (result) => {
      clearSessionEnded();
      queryClient.clear();
      queryClient.setQueryData(meKey, { username: result.username });
    },
  });
}

export function useLogout() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => call(api.POST('/api/auth/logout')),
    onSettled: () => queryClient.clear(),
  });
}
