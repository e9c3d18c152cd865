import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from './client';
import { ApiError, call } from './errors';
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

export type FirewallView = S['FirewallView'];
export type FirewallSettings = S['FirewallSettings'];
export type FirewallRule = S['Allowed'];
export type FirewallTrial = S['Trial'];
export type StorageNetwork = S['StorageNetwork'];

const firewallKey = ['settings', 'firewall'] as const;

export function useFirewall() {
  return useQuery({ queryKey: firewallKey, queryFn: () => call(api.GET('/api/settings/firewall')) });
}

/**
 * Replace the firewall settings. A change of the management networks comes back on trial: live at once,
 * undone by the appliance at `trial.until` unless confirmed.
 */
export function useSaveFirewall() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: FirewallSettings) => call(api.PUT('/api/settings/firewall', { body })),
    onSuccess: (view) => queryClient.setQueryData(firewallKey, view),
  });
}

// A refusal means the change on trial is gone (its time was up) and what is shown is stale; an api out of
// reach says nothing about it, and a refetch would only replace what is shown by an error.
function refetchUnlessUnreachable(queryClient: ReturnType<typeof useQueryClient>, error: unknown) {
  if (error instanceof ApiError && error.code !== 'network_error') void queryClient.invalidateQueries({ queryKey: firewallKey });
}

/** Keep the change on trial. Sent from the browser through the rules on trial, so its arrival proves they let it in. */
export function useConfirmFirewall() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => call(api.POST('/api/settings/firewall/confirm')),
    onSuccess: (view) => queryClient.setQueryData(firewallKey, view),
    onError: (error) => refetchUnlessUnreachable(queryClient, error),
  });
}

/** Drop the change on trial: the kept rules come back at once. */
export function useCancelFirewallTrial() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => call(api.DELETE('/api/settings/firewall/trial')),
    onSuccess: (view) => queryClient.setQueryData(firewallKey, view),
    onError: (error) => refetchUnlessUnreachable(queryClient, error),
  });
}
