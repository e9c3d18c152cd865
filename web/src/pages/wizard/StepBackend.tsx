import { CdsButton } from '@cds/react/button';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useInventory } from '../../api/vcenters';
import { useOffers } from '../../api/wizard';
import { ErrorState } from '../../components/ErrorState';
import { Loading } from '../../components/Loading';
import './backend.css';
import { BackendApplianceFields } from './BackendApplianceFields';
import { BackendHostCard } from './BackendHostCard';
import { BackendNetworkFields } from './BackendNetworkFields';
import { BackendPasswordFields } from './BackendPasswordFields';
import { BackendStorageFields } from './BackendStorageFields';
import {
  backendFieldOf,
  lunDatastores,
  rdmLuns,
  sharedDatastores,
  sharedNetworks,
  ssdDatastores,
  storageOf,
  validateBackend,
} from './backendModel';
import type { Draft, StepProps } from './draft';
import { applianceName } from './plan';
import { nfsAddressesOf, nfsClientsErrors } from './placementModel';
import { useRefusal } from './placementRefusal';
import { useReturnedError } from './ReviewErrors';
import { StandInNotice } from './StandInNotice';
import { standInErrors, withStandIns } from './standInModel';

type Backend = Draft['backend'];

/** Step 3: the appliances (OVA, size, network, addresses, password) and the SAN LUNs each one pools. */
export function StepBackend({ draft, update, next, back }: StepProps) {
  const inventory = useInventory(draft.vcenterId ?? 0);
  const { errors, refuse, clear } = useRefusal();
  const returned = useReturnedError();
  // Once accepted, the password needs no second typing when the admin comes back to this step.
  const [confirm, setConfirm] = useState(draft.backend.adminPassword);
  const offers = useOffers();
  const loaded = inventory.data;
  const standIns = useMemo(() => offers.data?.stand_ins ?? [], [offers.data]);
  const newestOva = offers.data?.ovas[0]?.path ?? '';
  // What this machine offers fills in what the admin has not given yet, once (draft.backend.offersFilled): the
  // newest OVA, and each lab appliance's api address and disks for the host it plays. Nothing the admin typed
  // or cleared is replaced.
  useEffect(() => {
    const inv = loaded;
    if (!inv) return;
    const once = draft.backend.offersFilled ?? { ova: false, hosts: [] };
    const fillOva = !once.ova && !draft.backend.ovaPath && newestOva !== '';
    const skip = new Set(once.hosts);
    const standInBackend = withStandIns(inv, draft, standIns, skip);
    const marked = {
      ova: once.ova || newestOva !== '',
      hosts: standIns.length > 0 ? [...new Set([...once.hosts, ...draft.hosts])] : once.hosts,
    };
    const marks = marked.ova !== once.ova || marked.hosts.length !== once.hosts.length;
    if (!fillOva && !standInBackend && !marks) return;
    update((d) => {
      const b = withStandIns(inv, d, standIns, skip) ?? d.backend;
      return { ...d, backend: { ...b, ovaPath: fillOva ? newestOva : b.ovaPath, offersFilled: marked } };
    });
  }, [loaded, draft, standIns, newestOva, update]);

  // A refusal of the plan that Review sent back here is shown at the field that asks for it, when there is one
  // (ReviewReturned shows the others above the form).
  const hosts = draft.hosts;
  const storageChosen = Boolean(draft.backend.storageNetwork);
  const shown = useRef<unknown>(null); // once per refusal: a field fixed since stays fixed
  useEffect(() => {
    if (!returned || shown.current === returned) return;
    shown.current = returned;
    const key = backendFieldOf(returned.field, hosts, storageChosen);
    if (key) refuse({ [key]: returned.message });
  }, [returned, refuse, hosts, storageChosen]);

  if (inventory.isPending) return <Loading label="Reading the vCenter inventory" />;
  if (inventory.isError) {
    return <ErrorState title="Could not read the vCenter inventory" error={inventory.error} onRetry={() => void inventory.refetch()} />;
  }
  const inv = inventory.data;
  const backend = draft.backend;
  const storage = storageOf(backend);
  const setBackend = (change: (b: Backend) => Partial<Backend>) =>
    update((d) => ({ ...d, backend: { ...d.backend, ...change(d.backend) } }));
  const perHost = (key: 'addresses' | 'apiEndpoints' | 'luns', host: string) => (value: Backend[typeof key][string]) =>
    setBackend((b) => ({ [key]: { ...b[key], [host]: value } }));

  const submit = () => {
    if (!refuse({ ...validateBackend(inv, draft, confirm), ...standInErrors(draft, standIns), ...nfsClientsErrors(backend.nfsClients) })) next();
  };

  return (
    <>
      <h3 cds-text="subsection">Appliances</h3>
      <StandInNotice offers={offers.data} hosts={draft.hosts} first={draft.firstAppliance} />
      <BackendApplianceFields
        backend={backend}
        ovas={offers.data?.ovas ?? []}
        networks={sharedNetworks(inv, draft.hosts)}
        datastores={sharedDatastores(inv, draft.hosts)}
        errors={errors}
        set={(key, value) => {
          clear(key);
          setBackend(() => ({ [key]: value }));
        }}
      />
      <h3 cds-text="subsection">IPv4 settings</h3>
      <p className="muted small">Static IPv4: each appliance has its own address (below, per host) and shares these.</p>
      <BackendNetworkFields
        properties={backend.properties}
        errors={errors}
        set={(key, value) => {
          clear(key);
          setBackend((b) => ({ properties: { ...b.properties, ipv4_mode: 'static', [key]: value } }));
        }}
        clients={{
          value: backend.nfsClients,
          hosts: inv ? nfsAddressesOf(inv, draft.datacenter, draft.cluster) : [],
          onChange: (nfsClients) => {
            clear('nfsClients');
            setBackend(() => ({ nfsClients }));
          },
        }}
      />
      {storage.network && (
        <>
          <h3 cds-text="subsection">Storage network</h3>
          <p className="muted small">
            Each appliance serves NFS and iSCSI on its storage address (below, per host) on {storage.network}, and its web interface only on the
            management network. They share these.
          </p>
          <BackendStorageFields
            prefix={storage.prefix}
            mtu={storage.mtu}
            errors={errors}
            set={(key, value) => {
              clear(key);
              setBackend(() => ({ [key]: value }));
            }}
          />
        </>
      )}
      <h3 cds-text="subsection">SAN LUNs per host</h3>
      <p className="muted small">
        Each appliance pools its LUNs into one ZFS pool: a thin VMDK per LUN on a VMFS datastore of its host, or a free LUN of the host mapped raw (RDM). Optionally an SSD
        for the write log (SLOG) and one for the read cache (L2ARC): a VMDK each on a local SSD datastore of the host.
      </p>
      {draft.hosts.map((host, i) => (
        <BackendHostCard
          key={host}
          host={host}
          applianceName={applianceName(i, draft.firstAppliance)}
          address={backend.addresses[host] ?? ''}
          storageAddress={storage.network ? (storage.addresses[host] ?? '') : undefined}
          endpoint={backend.apiEndpoints[host] ?? ''}
          luns={backend.luns[host] ?? []}
          candidates={lunDatastores(inv, host)}
          ssdCandidates={ssdDatastores(inv, host)}
          rdmCandidates={rdmLuns(inv, draft, host)}
          errors={errors}
          clear={clear}
          onAddress={perHost('addresses', host)}
          onStorageAddress={(value) => setBackend((b) => ({ storageAddresses: { ...storageOf(b).addresses, [host]: value } }))}
          onEndpoint={perHost('apiEndpoints', host)}
          onLuns={perHost('luns', host)}
        />
      ))}
      <h3 cds-text="subsection">Administrator</h3>
      <BackendPasswordFields
        password={backend.adminPassword}
        confirm={confirm}
        errors={errors}
        onPassword={(adminPassword) => {
          clear('adminPassword');
          setBackend(() => ({ adminPassword }));
        }}
        onConfirm={(value) => {
          clear('adminPasswordConfirm');
          setConfirm(value);
        }}
      />
      <div className="form-actions">
        <CdsButton action="outline" onClick={back}>
          Back
        </CdsButton>
        <CdsButton onClick={submit}>Next</CdsButton>
      </div>
    </>
  );
}
