import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from './client';
import { call } from './errors';
import type { components } from './schema';

type S = components['schemas'];
export type User = S['UserView'];
export type UserCreate = S['UserCreate'];
export type PasswordChange = S['PasswordChange'];
export type TlsState = S['TlsState'];
export type TlsUpload = S['TlsUpload'];
export type CertificateFacts = S['CertificateFacts'];

const usersKey = ['settings', 'users'] as const;
const tlsKey = ['settings', 'tls'] as const;

export function useUsers() {
  return useQuery({ queryKey: usersKey, queryFn: () => call(api.GET('/api/users')) });
}

export function useCreateUser() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: UserCreate) => call(api.POST('/api/users', { body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: usersKey }),
  });
}

export function useChangePassword() {
  return useMutation({
    mutationFn: ({ id, body }: { id: number; body: PasswordChange }) =>
      call(api.PUT('/api/users/{user_id}/password', { params: { path: { user_id: id } }, body })),
  });
}

export function useDeleteUser() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => call(api.DELETE('/api/users/{user_id}', { params: { path: { user_id: id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: usersKey }),
  });
}

export function useTls() {
  return useQuery({ queryKey: tlsKey, queryFn: () => call(api.GET('/api/settings/tls')) });
}

/** Check a certificate and key without installing them. */
export function useCheckTls() {
  return useMutation({ mutationFn: (body: TlsUpload) => call(api.POST('/api/settings/tls/check', { body })) });
}

export function useInstallTls() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: TlsUpload) => call(api.PUT('/api/settings/tls', { body })),
    onSuccess: (state) => queryClient.setQueryData(tlsKey, state),
  });
}

/** A new key and certificate for the same names, for the appliance's own self-signed certificate. */
export function useRenewTls() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => call(api.POST('/api/settings/tls/renew')),
    onSuccess: (state) => queryClient.setQueryData(tlsKey, state),
  });
}

export type NotifySettings = S['NotifySettings'];
export type NotifySettingsIn = S['NotifySettingsIn'];
export type SyslogSettings = S['SyslogSettings'];
export type SmtpSettings = S['SmtpSettings'];
export type SendResult = S['SendResult'];

const notifyKey = ['settings', 'notifications'] as const;

export function useNotifications() {
  return useQuery({ queryKey: notifyKey, queryFn: () => call(api.GET('/api/settings/notifications')) });
}

/** Replace the notification settings; log forwarding is applied to the appliance's rsyslog first. */
export function useSaveNotifications() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: NotifySettingsIn) => call(api.PUT('/api/settings/notifications', { body })),
    onSuccess: (saved) => queryClient.setQueryData(notifyKey, saved),
  });
}

/** A test message on every enabled alert channel, each channel's outcome. */
export function useTestNotifications() {
  return useMutation({ mutationFn: () => call(api.POST('/api/settings/notifications/test')) });
}
