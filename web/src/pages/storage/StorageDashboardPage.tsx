import { CdsIcon } from '@cds/react/icon';
import { useMemo, useState } from 'react';
import { useMetrics, useMetricsSummary } from '../../api/metrics';
import { ErrorState } from '../../components/ErrorState';
import { Loading } from '../../components/Loading';
import { PageHeader } from '../../components/PageHeader';
import { ChartGrid } from './ChartGrid';
import { DatastoreCards } from './DatastoreCards';
import { chartSpecs } from './metricsModel';
import { RangePicker } from './RangePicker';

/** How well the appliance shields the SAN: cache hits, offload, IOPS and latency on both sides, per datastore. */
export function StorageDashboardPage() {
  const [minutes, setMinutes] = useState(60);
  const metrics = useMetrics(minutes);
  const summary = useMetricsSummary();
  const points = metrics.data?.points;
  const charts = useMemo(() => (points ? chartSpecs(points) : []), [points]);
  const times = useMemo(() => points?.map((p) => new Date(p.t).getTime()) ?? [], [points]);

  return (
    <>
      <PageHeader
        title="Storage dashboard"
        subtitle="What the cache takes off the SAN: hit ratios, offload, and I/O at the NFS clients against I/O at the LUNs."
        actions={<RangePicker minutes={minutes} onChange={setMinutes} />}
      />
      {summary.isPending && <Loading label="Reading the latest sample" />}
      {summary.isError && (
        <ErrorState title="Could not read the latest sample" error={summary.error} onRetry={() => void summary.refetch()} />
      )}
      {summary.isSuccess && <DatastoreCards summary={summary.data} />}

      <h2 cds-text="section" className="dashboard-heading">
        Over time
      </h2>
      {metrics.isPending && <Loading label="Reading the samples" />}
      {metrics.isError && (
        <ErrorState title="Could not read the samples" error={metrics.error} onRetry={() => void metrics.refetch()} />
      )}
      {metrics.isSuccess && metrics.data.points.length === 0 && (
        <div className="empty-state" data-testid="metrics-empty">
          <CdsIcon shape="line-chart" size="xl" />
          <p cds-text="section">No samples in this time range yet</p>
          <p cds-text="secondary">
            The appliance records one sample every {metrics.data.interval_seconds} s while ZFS is loaded; charts appear
            after two.
          </p>
        </div>
      )}
      {metrics.isSuccess && metrics.data.points.length > 0 && (
        <ChartGrid charts={charts} times={times} busy={metrics.isFetching} />
      )}
    </>
  );
}
