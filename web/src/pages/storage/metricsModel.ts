// The dashboard's series, built from the metrics api's points (rates per second per interval).
import type { MetricPoint } from '../../api/metrics';
import type { Series } from '../../components/charts/types';

export const COLORS = {
  blue: '#0072a3',
  orange: '#c25400',
  violet: '#7b55b5',
  green: '#318700',
};

/** What a chart reads of a point: one appliance's sample interval, or a bucket of the fleet's figures. */
export type ChartPoint = Pick<
  MetricPoint,
  | 'arc_hit_ratio'
  | 'l2_hit_ratio'
  | 'read_offload'
  | 'write_offload'
  | 'client_read_ops'
  | 'client_write_ops'
  | 'lun_read_ops'
  | 'lun_write_ops'
  | 'client_latency_ms'
  | 'lun_read_latency_ms'
  | 'lun_write_latency_ms'
  | 'client_read_bytes'
  | 'client_write_bytes'
  | 'lun_read_bytes'
  | 'lun_write_bytes'
  | 'compressratio'
>;

export interface ChartSpec {
  key: string;
  title: string;
  description: string;
  series: Series[];
  format: (value: number) => string;
  readout?: (value: number) => string;
  yMin?: number;
  yMax?: number;
  tickUnit?: (max: number) => number;
}

/** Ticks on round KiB/s, MiB/s ... rather than on round decimal byte counts. */
export const binaryUnit = (max: number) => 1024 ** Math.max(0, Math.floor(Math.log(Math.max(max, 1)) / Math.log(1024)));

const pick = (points: ChartPoint[], f: (p: ChartPoint) => number | null | undefined) =>
  points.map((p) => {
    const v = f(p);
    return v === undefined || v === null || !Number.isFinite(v) ? null : v;
  });

/** One decimal below 10, none above; a trailing ".0" dropped (axis ticks are round numbers). */
function short(v: number): string {
  return (v >= 10 ? v.toFixed(0) : v.toFixed(1)).replace(/\.0$/, '');
}

export const percent = (v: number) => `${Math.round(v * 100)} %`;
export const times = (v: number) => `${short(v)}x`;
export const ratio = (v: number) => `${v.toFixed(2)}x`;
export const ms = (v: number) => `${short(v)} ms`;

const fixed = (digits: number, suffix: string) => (v: number) => `${v.toFixed(digits)}${suffix}`;

export function iops(v: number): string {
  return v >= 1000 ? `${short(v / 1000)}k` : short(v);
}

export function rate(bytes: number): string {
  const units = ['B/s', 'KiB/s', 'MiB/s', 'GiB/s'];
  let v = bytes;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u += 1;
  }
  return `${u === 0 ? v.toFixed(0) : short(v)} ${units[u]}`;
}

/** The six dashboard charts, in reading order. */
export function chartSpecs(points: ChartPoint[]): ChartSpec[] {
  return [
    {
      key: 'hits',
      title: 'Cache hit ratio',
      description: 'Share of reads answered from RAM (ARC) and from the SSD read cache (L2ARC, of what missed the ARC).',
      series: [
        { key: 'arc', label: 'ARC', color: COLORS.blue, values: pick(points, (p) => p.arc_hit_ratio) },
        { key: 'l2', label: 'L2ARC', color: COLORS.violet, values: pick(points, (p) => p.l2_hit_ratio) },
      ],
      format: percent,
      yMax: 1,
    },
    {
      key: 'offload',
      title: 'SAN offload',
      description: 'Bytes the ESXi hosts read or wrote per byte that reached the SAN LUNs (higher is better).',
      series: [
        { key: 'read', label: 'Read offload', color: COLORS.blue, values: pick(points, (p) => p.read_offload) },
        { key: 'write', label: 'Write offload', color: COLORS.orange, values: pick(points, (p) => p.write_offload) },
      ],
      format: times,
      readout: fixed(1, 'x'),
    },
    {
      key: 'iops',
      title: 'IOPS: NFS clients vs LUNs',
      description: 'Operations per second the hosts asked for (solid) and that reached the SAN LUNs (dashed).',
      series: [
        { key: 'cr', label: 'Client reads', color: COLORS.blue, values: pick(points, (p) => p.client_read_ops) },
        { key: 'cw', label: 'Client writes', color: COLORS.orange, values: pick(points, (p) => p.client_write_ops) },
        { key: 'lr', label: 'LUN reads', color: COLORS.blue, dashed: true, values: pick(points, (p) => p.lun_read_ops) },
        { key: 'lw', label: 'LUN writes', color: COLORS.orange, dashed: true, values: pick(points, (p) => p.lun_write_ops) },
      ],
      format: iops,
      readout: (v) => v.toFixed(v >= 100 ? 0 : 1),
    },
    {
      key: 'latency',
      title: 'Latency: NFS clients vs LUNs',
      description: 'Average time per operation as the NFS clients see it (solid) and at the SAN LUNs (dashed).',
      series: [
        { key: 'client', label: 'NFS client', color: COLORS.green, values: pick(points, (p) => p.client_latency_ms) },
        { key: 'lr', label: 'LUN reads', color: COLORS.blue, dashed: true, values: pick(points, (p) => p.lun_read_latency_ms) },
        { key: 'lw', label: 'LUN writes', color: COLORS.orange, dashed: true, values: pick(points, (p) => p.lun_write_latency_ms) },
      ],
      format: ms,
      readout: fixed(2, ' ms'),
    },
    {
      key: 'throughput',
      title: 'Throughput: NFS clients vs LUNs',
      description: 'Bytes per second the hosts read and wrote (solid) and that reached the SAN LUNs (dashed).',
      series: [
        { key: 'cr', label: 'Client reads', color: COLORS.blue, values: pick(points, (p) => p.client_read_bytes) },
        { key: 'cw', label: 'Client writes', color: COLORS.orange, values: pick(points, (p) => p.client_write_bytes) },
        { key: 'lr', label: 'LUN reads', color: COLORS.blue, dashed: true, values: pick(points, (p) => p.lun_read_bytes) },
        { key: 'lw', label: 'LUN writes', color: COLORS.orange, dashed: true, values: pick(points, (p) => p.lun_write_bytes) },
      ],
      format: rate,
      tickUnit: binaryUnit,
    },
    {
      key: 'compression',
      title: 'Compression ratio',
      description: 'Logical bytes per byte stored, over all pools: what lz4 saves on the SAN.',
      series: [{ key: 'ratio', label: 'Compression', color: COLORS.green, values: pick(points, (p) => p.compressratio) }],
      format: ratio,
      yMin: 1,
    },
  ];
}
