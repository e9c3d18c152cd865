import { CdsAlert, CdsAlertGroup } from '@cds/react/alert';
import { useAlerts } from '../api/alerts';

/** The appliance's alerts above every page: critical ones (I/O stopped, data at risk) first. */
export function AlertBanner() {
  const { data } = useAlerts();
  if (!data || data.length === 0) return null;
  const critical = data.some((a) => a.severity === 'critical');
  return (
    <CdsAlertGroup
      type="banner"
      status={critical ? 'danger' : 'warning'}
      role={critical ? 'alert' : 'status'}
      aria-label="Appliance alerts"
      data-testid="alert-banner"
    >
      {data.map((a) => (
        <CdsAlert key={a.key} status={a.severity === 'critical' ? 'danger' : 'warning'}>
          <strong>{a.subject}</strong>: {a.message}
        </CdsAlert>
      ))}
    </CdsAlertGroup>
  );
}
