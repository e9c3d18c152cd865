import { CdsButton } from '@cds/react/button';
import { CdsModal, CdsModalActions, CdsModalContent, CdsModalHeader } from '@cds/react/modal';
import type { ReactNode } from 'react';

interface Props {
  title: string;
  children: ReactNode;
  confirmLabel: string;
  busy?: boolean;
  error?: string | null;
  onConfirm: () => void;
  onCancel: () => void;
}

/** A danger confirmation dialog (delete and the like). */
export function ConfirmModal({ title, children, confirmLabel, busy, error, onConfirm, onCancel }: Props) {
  return (
    <CdsModal aria-labelledby="confirm-title" onCloseChange={onCancel} closable>
      <CdsModalHeader>
        <h2 id="confirm-title" cds-text="title">
          {title}
        </h2>
      </CdsModalHeader>
      <CdsModalContent>
        <div cds-layout="vertical gap:md">
          <div>{children}</div>
          {error && (
            <p className="text-danger" role="alert">
              {error}
            </p>
          )}
        </div>
      </CdsModalContent>
      <CdsModalActions>
        <div cds-layout="horizontal gap:sm align:right">
          <CdsButton action="outline" onClick={onCancel} disabled={busy}>
            Cancel
          </CdsButton>
          <CdsButton status="danger" onClick={onConfirm} disabled={busy}>
            {confirmLabel}
          </CdsButton>
        </div>
      </CdsModalActions>
    </CdsModal>
  );
}
