import type { Datastore } from '../../api/types';
import { TextField } from '../../components/TextField';
import { BackendLunGuestPaths, BackendLunTable, hasGuestPaths } from './BackendLunTable';
import type { HostLun } from './backendModel';
import { BackendSsdFields } from './BackendSsdFields';
import { isSsd, type LunChoice } from './draft';

interface Props {
  host: string;
  applianceName: string;
  address: string;
  /** Its address on the storage port group; undefined: no storage port group is chosen (the field is not shown). */
  storageAddress?: string;
  endpoint: string;
  luns: LunChoice[];
  candidates: Datastore[];
  /** Datastores for its SLOG and L2ARC VMDKs, SSD-backed ones first. */
  ssdCandidates: { ds: Datastore; ssd: boolean }[];
  rdmCandidates: HostLun[];
  errors: Record<string, string>;
  clear: (key: string) => void;
  onAddress: (value: string) => void;
  onStorageAddress: (value: string) => void;
  onEndpoint: (value: string) => void;
  onLuns: (luns: LunChoice[]) => void;
}

/** One chosen host: the address of its appliance, the LUNs it pools, and the api address override. */
export function BackendHostCard(props: Props) {
  const { host, applianceName, errors, clear } = props;
  const endpointKey = `endpoint:${host}`;
  const headingId = `backend-host-${applianceName}`;
  // The SAN LUNs first, then the SSDs: the LUN table edits the former, BackendSsdFields the latter.
  const dataLuns = props.luns.filter((l) => !isSsd(l));
  const ssds = props.luns.filter(isSsd);
  return (
    <section className="backend-host" aria-labelledby={headingId} data-testid="backend-host" data-host={host}>
      <h4 id={headingId} cds-text="subsection">
        {applianceName} on {host}
      </h4>
      <TextField
        label={`IPv4 address of ${applianceName}`}
        name={`address-${host}`}
        value={props.address}
        hint={props.storageAddress === undefined ? 'Its NFS and api address, on the port group above.' : 'Its api address (web interface, SSH), on the management port group.'}
        error={errors[`address:${host}`]}
        onChange={(value) => {
          clear(`address:${host}`);
          props.onAddress(value.trim());
        }}
      />
      {props.storageAddress !== undefined && (
        <TextField
          label={`Storage address of ${applianceName}`}
          name={`storage-address-${host}`}
          value={props.storageAddress}
          hint="Its NFS and iSCSI address, on the storage port group: the hosts mount the datastore there."
          error={errors[`storageAddress:${host}`]}
          onChange={(value) => {
            clear(`storageAddress:${host}`);
            props.onStorageAddress(value.trim());
          }}
        />
      )}
      <BackendLunTable
        host={host}
        luns={dataLuns}
        candidates={props.candidates}
        rdmCandidates={props.rdmCandidates}
        errors={errors}
        onChange={(luns) => props.onLuns([...luns, ...ssds])}
        clear={clear}
      />
      <BackendSsdFields
        host={host}
        ssds={ssds}
        candidates={props.ssdCandidates}
        errors={errors}
        onChange={(chosen) => props.onLuns([...dataLuns, ...chosen])}
        clear={clear}
      />
      <details className="backend-advanced" open={Boolean(props.endpoint) || Boolean(errors[endpointKey]) || hasGuestPaths(host, props.luns, errors) || undefined}>
        <summary>Advanced</summary>
        <TextField
          label={`Api address of ${applianceName}`}
          name={`endpoint-${host}`}
          value={props.endpoint}
          hint="host:port where arcvsa reaches this appliance’s api, when its address is not reachable from here (NAT, the lab). Empty: its IPv4 address."
          error={errors[endpointKey]}
          onChange={(value) => {
            clear(endpointKey);
            props.onEndpoint(value.trim());
          }}
        />
        <BackendLunGuestPaths host={host} luns={props.luns} errors={errors} onChange={props.onLuns} clear={clear} />
      </details>
    </section>
  );
}
