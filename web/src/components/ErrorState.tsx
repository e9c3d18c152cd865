import { CdsAlert, CdsAlertActions, CdsAlertGroup } from '@cds/react/alert';
import { CdsButton } from '@cds/react/button';
import { CdsIcon } from '@cds/react/icon';
import { ApiError, messageOf } from '../api/errors';

/**
 * A failed load: what failed, why, and a way to try again. A machine without storage of its own (the fleet
 * manager) is no failure: its storage pages say so, with the api's words, and nothing to try again.
 */
export function ErrorState({ title, error, onRetry }: { title: string; error: unknown; onRetry?: () => void }) {
  if (error instanceof ApiError && error.code === 'no_local_storage') {
    return (
      <div className="empty-state" data-testid="no-local-storage" role="status">
        <CdsIcon shape="storage" size="xl" />
        <p cds-text="section">No storage on this machine</p>
        <p cds-text="secondary">{error.message}</p>
      </div>
    );
  }
  return (
    <CdsAlertGroup status="danger" role="alert" className="error-state">
      <CdsAlert>
        <strong>{title}.</strong> {messageOf(error)}
        {onRetry && (
          <CdsAlertActions>
            <CdsButton action="outline" status="danger" size="sm" onClick={onRetry}>
              Try again
            </CdsButton>
          </CdsAlertActions>
        )}
      </CdsAlert>
    </CdsAlertGroup>
  );
}
