import type { JobEvent } from '../../api/jobs';
import { desktopNames } from './desktopsModel';
import type { Draft } from './draft';

// What the Deploy step shows, worked out from the job's events: one row per phase (appliances, NFS
// mounts, desktops, Horizon) and the latest state of every object (a VM, 'datastore@host', 'horizon:pool').

export type ObjectState = 'waiting' | 'working' | 'retrying' | 'done' | 'failed';
export type PhaseId = 'appliances' | 'mounts' | 'desktops' | 'horizon';

export interface ObjectRow {
  name: string;
  phase: PhaseId;
  state: ObjectState;
  message: string;
}

export interface Phase {
  id: PhaseId;
  title: string;
  /** Objects of the phase this run handles, if known in advance */
  planned: number | null;
  done: number;
  failed: number;
  working: number;
}

const TITLES: Record<PhaseId, string> = {
  appliances: 'Appliances (OVA, LUN and SSD disks, ZFS pool and NFS export)',
  mounts: 'NFS datastore on every host',
  desktops: 'Desktops',
  horizon: 'Horizon pool',
};

function phaseOf(name: string, draft: Draft, desktops: ReadonlySet<string>): PhaseId | null {
  if (desktops.has(name)) return 'desktops';
  if (name.startsWith('horizon:')) return 'horizon';
  if (name.startsWith(`${draft.storage.datastoreName}@`)) return 'mounts';
  if (/^arcvsa-\d+$/.test(name)) return 'appliances';
  return null;
}

const STATE_OF: Record<string, ObjectState> = { done: 'done', failed: 'failed', retry: 'retrying', task: 'working', info: 'working', pin: 'working' };

/** The latest state of every object the events name, desktops of the plan first (waiting until touched). */
export function objectRows(draft: Draft, events: readonly JobEvent[]): ObjectRow[] {
  const names = desktopNames(draft.desktops);
  const desktops = new Set(names);
  const rows = new Map<string, ObjectRow>();
  for (const name of names) rows.set(name, { name, phase: 'desktops', state: 'waiting', message: '' });
  for (const e of events) {
    if (!e.object) continue;
    const phase = phaseOf(e.object, draft, desktops);
    const state = STATE_OF[e.kind];
    if (!phase || !state) continue;
    const before = rows.get(e.object);
    // a 'task' event carries a clone task's id: not words for people
    const message = e.kind === 'task' ? 'cloning' : e.message;
    rows.set(e.object, { name: e.object, phase, state, message: message || (state === 'done' ? '' : (before?.message ?? '')) });
  }
  return [...rows.values()];
}

export function phases(draft: Draft, rows: readonly ObjectRow[]): Phase[] {
  const planned: Record<PhaseId, number | null> = {
    appliances: null, // appliances in place already get no event: only what this run makes is counted
    mounts: null,
    desktops: rows.filter((r) => r.phase === 'desktops').length,
    horizon: draft.desktops.horizon ? 1 : null,
  };
  const ids: PhaseId[] = ['appliances', 'mounts', 'desktops', ...(draft.desktops.horizon ? (['horizon'] as const) : [])];
  return ids.map((id) => {
    const of = rows.filter((r) => r.phase === id);
    return {
      id,
      title: TITLES[id],
      planned: planned[id],
      done: of.filter((r) => r.state === 'done').length,
      failed: of.filter((r) => r.state === 'failed').length,
      working: of.filter((r) => r.state === 'working' || r.state === 'retrying').length,
    };
  });
}

/** The OVA upload's progress in words, from the latest 'bytes' event ('OVA upload 123 of 456 bytes'). */
export function upload(events: readonly JobEvent[]): string | null {
  const last = [...events].reverse().find((e) => e.kind === 'bytes');
  const m = last && /(\d+) of (\d+) bytes/.exec(last.message);
  if (!m) return null;
  const [sent, total] = [Number(m[1]), Number(m[2])];
  return `OVA upload: ${Math.round((sent * 100) / Math.max(total, 1))} % of ${(total / 2 ** 20).toFixed(0)} MiB`;
}
