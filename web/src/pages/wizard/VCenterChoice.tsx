import type { VCenter } from '../../api/types';
import { Thumbprint } from '../../components/Thumbprint';
import { formatAddress } from '../../format';
import { ConnectionState } from '../vcenters/ConnectionState';

interface Props {
  vcenters: readonly VCenter[];
  chosen: number | null;
  error?: string;
  onChoose: (id: number) => void;
}

/** The saved vCenter connections as radio buttons, each with its address, pinned thumbprint and state now. */
export function VCenterChoice({ vcenters, chosen, error, onChoose }: Props) {
  const messageId = 'vcenter-choice-message';
  return (
    <fieldset className="choice-group" data-field="vcenter" aria-describedby={error ? messageId : undefined}>
      <legend>Saved vCenter connections</legend>
      {vcenters.map((vc) => (
        <label key={vc.id} className="checkbox-line" data-testid="vcenter-option">
          <input
            type="radio"
            name="vcenter"
            value={vc.id}
            checked={chosen === vc.id}
            onChange={() => onChoose(vc.id)}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? messageId : undefined}
          />
          <span>
            <strong>{vc.name}</strong> <span className="muted mono">{formatAddress(vc.host, vc.port)}</span>{' '}
            <span className="muted">as {vc.username}</span>
            {vc.thumbprint_sha256 ? (
              <>
                {' '}
                <span className="muted">· pinned</span> <Thumbprint value={vc.thumbprint_sha256} compact />
              </>
            ) : (
              <span className="muted"> · certificate trusted by a CA</span>
            )}
            <span className="vcenter-choice-state">
              <ConnectionState id={vc.id} compact />
            </span>
          </span>
        </label>
      ))}
      {error && (
        <p id={messageId} className="text-danger field-error" data-field-message="vcenter">
          {error}
        </p>
      )}
    </fieldset>
  );
}
