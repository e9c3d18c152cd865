import { useState } from 'react';
import { ApiError } from '../../api/errors';
import type { Certificate, VCenter } from '../../api/types';
import { useCreateVCenter, useFetchCertificate } from '../../api/vcenters';
import { type ConnectDraft, type FieldErrors, fieldOf, validate } from './connectModel';

export type Stage = { kind: 'edit' } | { kind: 'review'; cert: Certificate; notice?: string };

interface Accepted {
  host: string;
  port: number;
  thumbprint: string;
}

const CERT_CODES = new Set(['certificate_untrusted', 'thumbprint_mismatch']);

/**
 * Certificate first, then connect: fetch the certificate the address presents; if no CA vouches for it,
 * stop for the user's explicit decision; then ask the api to log in and save (it saves only on success).
 */
export function useConnectFlow(onConnected: (vcenter: VCenter) => void) {
  const certificate = useFetchCertificate();
  const create = useCreateVCenter();
  const [stage, setStage] = useState<Stage>({ kind: 'edit' });
  const [errors, setErrors] = useState<FieldErrors>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [accepted, setAccepted] = useState<Accepted | null>(null);

  const showError = (error: unknown) => {
    setStage({ kind: 'edit' });
    const field = error instanceof ApiError ? fieldOf(error.field) : null;
    if (field) setErrors({ [field]: (error as ApiError).message });
    else setFormError(error instanceof Error ? error.message : 'Something went wrong');
  };

  const review = async (host: string, port: number, notice?: string) => {
    try {
      const cert = await certificate.mutateAsync({ host, port });
      setStage({ kind: 'review', cert, notice });
    } catch (error) {
      showError(error);
    }
  };

  const connect = async (draft: ConnectDraft, thumbprint: string | null) => {
    const host = draft.host.trim();
    const port = Number(draft.port);
    try {
      const vcenter = await create.mutateAsync({
        name: draft.name.trim(),
        host,
        port,
        username: draft.username.trim(),
        password: draft.password,
        thumbprint_sha256: thumbprint,
      });
      onConnected(vcenter);
    } catch (error) {
      if (error instanceof ApiError && CERT_CODES.has(error.code)) {
        // The certificate is not (or no longer) the one the user saw: show the current one again.
        setAccepted(null);
        await review(host, port, error.message);
      } else {
        showError(error);
      }
    }
  };

  const submit = async (draft: ConnectDraft) => {
    const invalid = validate(draft);
    setErrors(invalid);
    setFormError(null);
    if (Object.keys(invalid).length) return;
    const host = draft.host.trim();
    const port = Number(draft.port);
    let cert: Certificate;
    try {
      cert = await certificate.mutateAsync({ host, port });
    } catch (error) {
      showError(error);
      return;
    }
    if (cert.trusted) return connect(draft, null);
    const same = accepted?.host === host && accepted.port === port && accepted.thumbprint === cert.thumbprint_sha256;
    if (same) return connect(draft, cert.thumbprint_sha256);
    setStage({ kind: 'review', cert });
  };

  const accept = async (draft: ConnectDraft) => {
    if (stage.kind !== 'review') return;
    const { cert } = stage;
    setAccepted({ host: draft.host.trim(), port: Number(draft.port), thumbprint: cert.thumbprint_sha256 });
    setStage({ kind: 'edit' });
    await connect(draft, cert.thumbprint_sha256);
  };

  const cancel = () => {
    setStage({ kind: 'edit' });
    certificate.reset();
  };

  const clearError = (field: keyof ConnectDraft) =>
    setErrors((current) => {
      if (!current[field]) return current;
      const next = { ...current };
      delete next[field];
      return next;
    });

  const busy = certificate.isPending ? 'certificate' : create.isPending ? 'connect' : null;

  return { stage, errors, formError, busy, submit, accept, cancel, clearError } as const;
}
