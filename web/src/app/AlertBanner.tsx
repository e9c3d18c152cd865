import { CdsAlert, CdsAlertGroup } from '@cds/react/alert';
import { Link } from 'react-router';
import { useAlerts } from '../api/alerts';
import { useStoragePresence } from '../api/storage';

/** On the fleet manager, alerts shown in full; the rest are counted (the Fleet page lists them by appliance). */
const SHOWN = 5;

/** The alerts above every page: critical ones (I/O stopped, data at risk) first. */
export function AlertBanner() {
  const { data } = useAlerts();
  const presence = useStoragePresence();
  if (!data || data.length === 0) return null;
  const critical = data.some((a) => a.severity === 'critical');
  const manager = presence.data?.present === false;
  const shown = manager ? data.slice(0, SHOWN) : data;
  const more = data.length - shown.length;
  return (
    <CdsAlertGroup
      type="banner"
      status={critical ? 'danger' : 'warning'}
      role={critical ? 'alert' : 'status'}
      aria-label="Appliance alerts"
      data-testid="alert-banner"
    >
      {shown.map((a) => (
        <CdsAlert key={a.key} status={a.severity === 'critical' ? 'danger' : 'warning'}>
          <strong>{a.subject}</strong>: {a.message}
        </CdsAlert>
      ))}
      {more > 0 && (
        <CdsAlert status="info" data-testid="alert-banner-more">
          {more} more {more === 1 ? 'alert' : 'alerts'}: <Link to="/fleet">see the Fleet page</Link>
        </CdsAlert>
      )}
    </CdsAlertGroup>
  );
}
