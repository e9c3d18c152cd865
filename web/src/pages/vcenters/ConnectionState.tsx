import { CdsIcon } from '@cds/react/icon';
import { useConnectionState } from './connectionState';

const time = (at: number) => new Date(at).toLocaleTimeString(undefined, { timeStyle: 'short' });

/** "Connected · vCenter 8.0 · checked 14:05", "Checking…", or why the login failed: never "not tested". */
export function ConnectionState({ id, compact = false }: { id: number; compact?: boolean }) {
  const state = useConnectionState(id);
  if (state.isPending) {
    return (
      <span className="muted" role="status" data-testid="vcenter-state" data-state="checking">
        Checking the connection…
      </span>
    );
  }
  if (state.isError) {
    return (
      <span className="status status-error" data-testid="vcenter-state" data-state="failed">
        <CdsIcon shape="exclamation-circle" status="danger" solid /> {compact ? 'Not connected: ' : ''}
        {state.error.message}
      </span>
    );
  }
  const about = state.data.about;
  const kind = about.api_type === 'HostAgent' ? 'ESXi' : 'vCenter';
  return (
    <span data-testid="vcenter-state" data-state="connected">
      <span className="status status-ok">
        <CdsIcon shape="check-circle" status="success" solid /> Connected
      </span>
      <span className={compact ? 'muted' : 'muted small connection-detail'}>
        {compact ? ' · ' : ''}
        {kind} {about.version} · checked {time(state.dataUpdatedAt)}
        {state.isFetching ? ' (checking again…)' : ''}
      </span>
    </span>
  );
}
