import { useCallback, useEffect, useState } from 'react';
import type { DeploymentPlan } from '../../api/deployments';

// The wizard's answers so far. They live in localStorage (per browser) so a reload, or coming back
// tomorrow, resumes where the admin left off; once stored as a deployment the api holds the plan and
// `deploymentId` points at it.

export type StepId = 'vcenter' | 'placement' | 'backend' | 'pooltype' | 'desktops' | 'review' | 'deploy';

export const STEPS: readonly { id: StepId; title: string }[] = [
  { id: 'vcenter', title: 'vCenter' },
  { id: 'placement', title: 'Placement' },
  { id: 'backend', title: 'Back end' },
  { id: 'pooltype', title: 'Pool type' },
  { id: 'desktops', title: 'Desktops' },
  { id: 'review', title: 'Review' },
  { id: 'deploy', title: 'Deploy' },
];

/** One SAN LUN given to an appliance: a thin VMDK on a VMFS datastore, or a raw-mapped LUN. `guestPath`:
 * its /dev/disk/by-id path in the appliance, where the appliance cannot find it by its WWN. */
export type LunChoice = ({ kind: 'vmdk'; datastore: string; sizeGb: number } | { kind: 'rdm'; lun: string }) & {
  guestPath?: string;
  /** Its part in the pool (provisioning/plan.py LunDisk.role): none = a SAN LUN; 'log' = SLOG SSD; 'cache' = L2ARC SSD. */
  role?: LunRole;
};
export type LunRole = 'data' | 'log' | 'cache';
/** An SSD of the pool (SLOG or L2ARC): BackendSsdFields shows those, the SAN LUN table the others. */
export const isSsd = (lun: LunChoice) => lun.role === 'log' || lun.role === 'cache';

export interface Draft {
  vcenterId: number | null;
  datacenter: string;
  cluster: string;
  hosts: string[];
  backend: {
    ovaPath: string;
    size: 'small' | 'medium' | 'large';
    network: string;
    bootDatastore: string;
    /** LUNs per host (the appliance on that host pools them). */
    luns: Record<string, LunChoice[]>;
    /** Static IPv4 address of the appliance on each host (its NFS and api address). */
    addresses: Record<string, string>;
    /** OVF properties shared by every appliance: ipv4_prefix, ipv4_gateway, dns_servers, ntp_servers ... */
    properties: Record<string, string>;
    /** The appliances' admin password: kept in memory only, never saved in the browser. */
    adminPassword: string;
    /** host:port of each appliance's api where its address is not reachable from arcvsa (NAT, the lab). */
    apiEndpoints: Record<string, string>;
    /** Port group of the appliances' storage NIC (the hosts' storage VMkernel ports); absent or '': none, NFS on `network`. */
    storageNetwork?: string;
    /** IPv4 address of each host's appliance on the storage port group (with a storage port group only). */
    storageAddresses?: Record<string, string>;
    /** Prefix length and MTU of the storage network, shared by every appliance (OVF storage_prefix, storage_mtu). */
    storagePrefix?: string;
    storageMtu?: string;
    /** The NFS export's clients as the admin edited them (one per line); absent: the hosts' VMkernel addresses. */
    nfsClients?: string;
    /** What this machine's offers have filled in already (the newest OVA; the stand-ins of these hosts): each is
     * filled once, so what the admin then clears stays cleared, on this step's every visit. */
    offersFilled?: { ova: boolean; hosts: string[] };
  };
  storage: {
    persistence: 'stateless' | 'persistent';
    clone: 'linked' | 'full';
    nfsVersion: '3' | '4.1';
    datastoreName: string;
    /** /<zfs pool>/<dataset> the appliances build and export */
    path: string;
  };
  desktops: {
    name: string;
    count: number;
    naming: string;
    firstNumber: number;
    folder: string;
    goldenVm: string;
    snapshot: string;
    vcpus: number;
    memoryMb: number;
    customizationSpec: string;
    horizon: null | { endpoint: string; username: string; domain: string; password: string; vcenter: string };
  };
  /** The deployment this draft is stored as: another name makes another deployment (names are ids). */
  deploymentId: number | null;
  /** Its job the Deploy step follows; other deployments' jobs go on and show on Desktop pools. */
  jobId: number | null;
  /** The furthest step whose answers were accepted: the step list links only up to the next one. */
  reached: number;
  /** The number of its first appliance (arcvsa-NN): after the other deployments' (unset: 1). */
  firstAppliance?: number;
  /** The stored plan this draft was brought back from (Desktop pools' Edit): what the wizard does not ask
   * for (clone concurrency, power-on, health timeout ...) is kept from it. */
  kept?: DeploymentPlan | null;
}

export const EMPTY: Draft = {
  vcenterId: null,
  datacenter: '',
  cluster: '',
  hosts: [],
  backend: {
    ovaPath: '',
    size: 'small',
    network: '',
    bootDatastore: '',
    luns: {},
    addresses: {},
    properties: { ipv4_mode: 'static', ipv4_prefix: '24' },
    adminPassword: '',
    apiEndpoints: {},
    storageNetwork: '',
    storageAddresses: {},
    storagePrefix: '24',
    storageMtu: '1500',
  },
  storage: { persistence: 'stateless', clone: 'linked', nfsVersion: '3', datastoreName: 'arcvsa-vdi', path: '/tank/vdi' },
  desktops: {
    name: '',
    count: 20,
    naming: 'vdi-###',
    firstNumber: 1,
    folder: 'vdi',
    goldenVm: '',
    snapshot: '',
    vcpus: 2,
    memoryMb: 4096,
    customizationSpec: '',
    horizon: null,
  },
  deploymentId: null,
  jobId: null,
  reached: 0,
};

const KEY = 'arcvsa.wizard.draft';

function load(): Draft {
  try {
    const raw = localStorage.getItem(KEY);
    // Secrets are never stored: the passwords are asked again after a reload.
    return raw ? { ...EMPTY, ...(JSON.parse(raw) as Partial<Draft>) } : EMPTY;
  } catch {
    return EMPTY;
  }
}

function withoutSecrets(draft: Draft): Draft {
  const horizon = draft.desktops.horizon;
  const backend = { ...draft.backend, adminPassword: '' };
  const desktops = horizon ? { ...draft.desktops, horizon: { ...horizon, password: '' } } : draft.desktops;
  return { ...draft, backend, desktops };
}

/** Make `draft` the wizard's (from outside it: editing a stored deployment); the wizard reads it when it opens. */
export function saveDraft(draft: Draft): void {
  localStorage.setItem(KEY, JSON.stringify(withoutSecrets(draft)));
}

/** The draft and a functional updater; every change is saved at once. */
export function useDraft() {
  const [draft, setDraft] = useState<Draft>(load);
  useEffect(() => {
    localStorage.setItem(KEY, JSON.stringify(withoutSecrets(draft)));
  }, [draft]);
  const update = useCallback((change: (d: Draft) => Draft) => setDraft(change), []);
  const reset = useCallback(() => setDraft(EMPTY), []);
  return { draft, update, reset };
}

/** What every step component gets. `next` moves on (call it only once the step's answers are valid). */
export interface StepProps {
  draft: Draft;
  update: (change: (d: Draft) => Draft) => void;
  next: () => void;
  back: () => void;
}
