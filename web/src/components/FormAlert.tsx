import { CdsAlert, CdsAlertGroup } from '@cds/react/alert';
import type { ReactNode } from 'react';

type Status = 'danger' | 'warning' | 'info' | 'success';

/** A form-level message (errors that belong to no single field). */
export function FormAlert({ status = 'danger', children }: { status?: Status; children: ReactNode }) {
  return (
    <CdsAlertGroup status={status} className="form-alert" role={status === 'danger' ? 'alert' : 'status'}>
      <CdsAlert>{children}</CdsAlert>
    </CdsAlertGroup>
  );
}
