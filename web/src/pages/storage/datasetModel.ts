// Dataset properties as a person types them ("100G", "none") and as zfs reports them (bytes, 0 for none).
import type { Dataset, DatasetProperties } from '../../api/storage';

const UNITS = [
  ['T', 2 ** 40],
  ['G', 2 ** 30],
  ['M', 2 ** 20],
  ['K', 2 ** 10],
] as const;

// The api's size rule (zfs_tuning.schema.parse_size): whole numbers, K M G T as powers of 1024.
const SIZE = /^\d+[KMGT]?$/i;

export const COMPRESSIONS = ['lz4', 'lzjb', 'zstd', 'off'] as const;

/** Bytes as zfs writes them: 16384 -> 16K, 1073741824 -> 1G. */
export function zfsSize(bytes: number): string {
  for (const [unit, size] of UNITS) {
    if (bytes >= size && bytes % size === 0) return `${bytes / size}${unit}`;
  }
  return String(bytes);
}

/** A quota or reservation as reported (bytes, 0 or none when unset) in the form's words. */
export function sizeText(value: unknown): string {
  const bytes = typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : NaN;
  if (Number.isFinite(bytes)) return bytes > 0 ? zfsSize(bytes) : 'none';
  return typeof value === 'string' && value ? value : 'none';
}

export function sizeError(typed: string): string | undefined {
  const value = typed.trim();
  if (value.toLowerCase() === 'none' || SIZE.test(value)) return undefined;
  return 'Enter a size like 100G or 512M, or none.';
}

export interface DatasetDraft {
  quota: string;
  reservation: string;
  compression: string;
}

export type DraftField = keyof DatasetDraft;

export function draftOf(dataset: Dataset): DatasetDraft {
  const p = dataset.properties;
  return { quota: sizeText(p.quota), reservation: sizeText(p.reservation), compression: String(p.compression ?? 'lz4') };
}

const FIELDS = ['quota', 'reservation', 'compression'] as const;

function normal(key: DraftField, typed: string): string {
  const value = typed.trim();
  if (key === 'compression') return value;
  return value.toLowerCase() === 'none' ? 'none' : value.toUpperCase();
}

/** Only what was changed is sent, so an untouched field never overwrites an inherited value. */
export function changes(before: DatasetDraft, after: DatasetDraft): DatasetProperties {
  const out: DatasetProperties = {};
  for (const key of FIELDS) {
    const value = normal(key, after[key]);
    if (value !== normal(key, before[key])) out[key] = value;
  }
  return out;
}

/** The field an api refusal is about: its `field`, the property its message names, or the one change sent. */
export function fieldOfRefusal(field: string | null, message: string, sent: DatasetProperties): DraftField | null {
  const named = FIELDS.find((key) => field === key || field === `properties.${key}` || message.includes(key));
  if (named) return named;
  const keys = FIELDS.filter((key) => key in sent);
  return keys.length === 1 ? keys[0]! : null;
}
