import { useMutation } from '@tanstack/react-query';
import { useSyncExternalStore } from 'react';
import { api } from './client';
import { attachmentName, saveFile } from './download';
import { call } from './errors';
import { markSessionEnded } from './session';
import type { components } from './schema';

export type RestoreReport = components['schemas']['RestoreReport'];

/** Shortest passphrase the api takes for a backup (BackupRequest). */
export const MIN_PASSPHRASE = 12;
const FALLBACK_NAME = 'arcvsa-config.arcvsa-backup';

/** A file's bytes as base64 (what the restore route takes). */
export async function fileBase64(file: Blob): Promise<string> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

/** What is wrong with a new backup passphrase and its repetition, by field (none: both fine). */
export function passphraseErrors(passphrase: string, confirm: string): { passphrase?: string; confirm?: string } {
  return {
    passphrase: passphrase.length < MIN_PASSPHRASE ? `At least ${MIN_PASSPHRASE} characters` : undefined,
    confirm: confirm !== passphrase ? 'The two passphrases differ' : undefined,
  };
}

/** Make a configuration backup under a passphrase and save it. */
export function useMakeBackup() {
  return useMutation({
    mutationFn: async (passphrase: string) => {
      let disposition: string | null = null;
      const blob = await call(
        api.POST('/api/backup', { body: { passphrase }, parseAs: 'blob' }).then((result) => {
          disposition = result.response.headers.get('content-disposition');
          return result;
        }),
      );
      const name = attachmentName(disposition, FALLBACK_NAME);
      saveFile(blob as Blob, name);
      return { name };
    },
  });
}

// A restore that replaced the users ended this session with every other: its report is kept here for the
// login page, where the next call's 401 takes the user before they could read it where they restored. That
// 401 may come before the restore's own answer (a page's polling), so the login page subscribes to it.
let restored: RestoreReport | null = null;
const listeners = new Set<() => void>();

function keep(report: RestoreReport | null): void {
  restored = report;
  listeners.forEach((listener) => listener());
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The report of the restore that ended this session, if one did; re-rendered when it arrives. */
export function useRestoredReport(): RestoreReport | null {
  return useSyncExternalStore(subscribe, () => restored);
}

export function forgetRestoredReport(): void {
  keep(null);
}

/** Restore a backup file onto this appliance; the answer says what came back and what did not. */
export function useRestoreBackup() {
  return useMutation({
    mutationFn: async ({ file, passphrase, replace }: { file: File; passphrase: string; replace: boolean }) =>
      call(api.POST('/api/backup/restore', { body: { file_base64: await fileBase64(file), passphrase, replace } })),
    onSuccess: (report) => {
      if (report.sessions_ended) {
        markSessionEnded();
        keep(report);
      }
    },
  });
}
