import { CdsAlert, CdsAlertActions, CdsAlertGroup } from '@cds/react/alert';
import { CdsButton } from '@cds/react/button';
import { messageOf } from '../api/errors';

/** A failed load: what failed, why, and a way to try again. */
export function ErrorState({ title, error, onRetry }: { title: string; error: unknown; onRetry?: () => void }) {
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
