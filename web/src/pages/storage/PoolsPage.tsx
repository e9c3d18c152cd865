import { CdsButton } from '@cds/react/button';
import { CdsIcon } from '@cds/react/icon';
import { useState } from 'react';
import { type ZfsPoolHealth, usePools } from '../../api/storage';
import { ErrorState } from '../../components/ErrorState';
import { Loading } from '../../components/Loading';
import { PageHeader } from '../../components/PageHeader';
import { CreatePoolForm } from './CreatePoolForm';
import { DestroyPoolModal } from './DestroyPoolModal';
import { ImportPoolForm } from './ImportPoolForm';
import { PoolCard } from './PoolCard';
import { RefreshButton } from './RefreshButton';

export function PoolsPage() {
  const pools = usePools();
  const [creating, setCreating] = useState(false);
  const [importing, setImporting] = useState(false);
  const [doomed, setDoomed] = useState<ZfsPoolHealth | null>(null);
  // One form at a time: creating and importing both end with a new pool card.
  const startCreating = () => {
    setImporting(false);
    setCreating(true);
  };
  const startImporting = () => {
    setCreating(false);
    setImporting(true);
  };

  const create = (
    <CdsButton onClick={startCreating} disabled={creating}>
      <CdsIcon shape="plus" /> Create pool
    </CdsButton>
  );

  return (
    <>
      <PageHeader
        title="Pools"
        subtitle="ZFS pools on the SAN LUNs, with their SLOG and L2ARC, and the health of every device."
        actions={
          <>
            <RefreshButton query={pools} />
            <CdsButton action="outline" onClick={startImporting} disabled={importing}>
              Import pool
            </CdsButton>
            {create}
          </>
        }
      />
      {importing && <ImportPoolForm taken={pools.data?.map((p) => p.name) ?? []} onDone={() => setImporting(false)} />}
      {creating && <CreatePoolForm onDone={() => setCreating(false)} />}
      {pools.isPending && <Loading label="Reading the pools" />}
      {pools.isError && (
        <ErrorState title="Could not read the pools" error={pools.error} onRetry={() => void pools.refetch()} />
      )}
      {pools.isSuccess && pools.data.length === 0 && !creating && !importing && (
        <div className="empty-state">
          <CdsIcon shape="storage" size="xl" />
          <p cds-text="section">No pool yet — create one from free disks</p>
          <p cds-text="secondary">A pool combines SAN LUNs; an SSD can hold its write log (SLOG) and read cache (L2ARC).</p>
          <CdsButton action="outline" onClick={startCreating}>
            Create pool
          </CdsButton>
        </div>
      )}
      {pools.isSuccess && pools.data.length > 0 && (
        <div className="storage-stack">
          {pools.data.map((pool) => (
            <PoolCard key={pool.name} pool={pool} onDestroy={() => setDoomed(pool)} />
          ))}
        </div>
      )}
      {doomed && <DestroyPoolModal pool={doomed} onClose={() => setDoomed(null)} />}
    </>
  );
}
