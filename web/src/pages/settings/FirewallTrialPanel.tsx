import { CdsAlert, CdsAlertActions, CdsAlertGroup } from '@cds/react/alert';
import { CdsButton } from '@cds/react/button';
import { useEffect } from 'react';
import type { FirewallTrial } from '../../api/settings';
import { formatTime } from '../../format';

interface Props {
  trial: FirewallTrial;
  cancelling: boolean;
  onKeep: () => void;
  onCancel: () => void;
  /** Its time is up: the appliance has put the previous rules back by itself. */
  onOver: () => unknown;
}

/** A change of the management networks on trial: live now, undone by the appliance unless kept in time. */
export function FirewallTrialPanel({ trial, cancelling, onKeep, onCancel, onOver }: Props) {
  useEffect(() => {
    // a second late: the api says the trial is over only once its time has passed
    const timer = window.setTimeout(onOver, Math.max(new Date(trial.until).getTime() - Date.now(), 0) + 1000);
    return () => window.clearTimeout(timer);
  }, [trial.until, onOver]);
  return (
    <CdsAlertGroup status="warning" role="group" aria-label="Firewall change on trial" data-testid="firewall-trial">
      <CdsAlert>
        The management networks {trial.settings.management.join(', ')} are in effect on trial: unless the change is
        kept, the rules listed above come back at {formatTime(trial.until)}.
        <CdsAlertActions>
          <CdsButton type="button" size="sm" onClick={onKeep} disabled={cancelling}>
            Keep
          </CdsButton>
          <CdsButton type="button" size="sm" action="outline" onClick={onCancel} disabled={cancelling} loadingState={cancelling ? 'loading' : 'default'}>
            Cancel
          </CdsButton>
        </CdsAlertActions>
      </CdsAlert>
    </CdsAlertGroup>
  );
}
