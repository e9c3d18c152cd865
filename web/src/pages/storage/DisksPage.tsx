import { CdsIcon } from '@cds/react/icon';
import { useState } from 'react';
import { type Disk, useDisks, usePools } from '../../api/storage';
import { ErrorState } from '../../components/ErrorState';
import { StorageLink } from '../../components/StorageLink';
import { FormAlert } from '../../components/FormAlert';
import { Loading } from '../../components/Loading';
import { PageHeader } from '../../components/PageHeader';
import { DiskRow } from './DiskRow';
import { RefreshButton } from './RefreshButton';
import { WipeDiskModal } from './WipeDiskModal';

export function DisksPage() {
  const disks = useDisks();
  const pools = usePools();
  const free = disks.data?.filter((d) => !d.system && !d.in_use).length ?? 0;
  const [wiping, setWiping] = useState<Disk | null>(null);
  const [wiped, setWiped] = useState<string | null>(null);
  return (
    <>
      <PageHeader
        title="Disks"
        subtitle="Block devices of this appliance: SAN LUNs and SSDs. Pools are built from free disks by their stable by-id path."
        actions={<RefreshButton query={disks} />}
      />
      {disks.isPending && <Loading label="Reading the disks" />}
      {disks.isError && (
        <ErrorState title="Could not read the disks" error={disks.error} onRetry={() => void disks.refetch()} />
      )}
      {disks.isSuccess && disks.data.length === 0 && (
        <div className="empty-state">
          <CdsIcon shape="storage" size="xl" />
          <p cds-text="section">No disks found</p>
          <p cds-text="secondary">Present SAN LUNs (and SSDs for the log and cache) to this appliance's VM, then refresh.</p>
        </div>
      )}
      {disks.isSuccess && disks.data.length > 0 && (
        <section className="card storage-section" aria-labelledby="disks-title">
          <h2 id="disks-title" cds-text="section">
            Disks <span className="count">{disks.data.length}</span>
          </h2>
          {wiped && (
            <FormAlert status="success">{wiped} is wiped: it is free for a pool.</FormAlert>
          )}
          <p className="muted">
            {free} free {free === 1 ? 'disk' : 'disks'}
            {free > 0 && (
              <>
                {' '}
                · <StorageLink to="/storage/pools">create a pool from them</StorageLink>
              </>
            )}
          </p>
          <div className="table-wrap">
            <table cds-table="border:outside border:row" className="data-table" data-testid="disks-table">
              <thead>
                <tr>
                  <th>Disk</th>
                  <th className="num">Size</th>
                  <th>Kind</th>
                  <th>Serial / WWN</th>
                  <th className="num">Sector</th>
                  <th>In use by</th>
                  <th>
                    <span className="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {disks.data.map((disk) => (
                  <DiskRow
                    key={disk.kernel_path}
                    disk={disk}
                    pools={pools.data ?? []}
                    onWipe={pools.isSuccess ? setWiping : undefined}
                  />
                ))}
              </tbody>
            </table>
          </div>
        </section>
      )}
      {wiping && (
        <WipeDiskModal
          disk={wiping}
          onClose={() => setWiping(null)}
          onWiped={(disk) => {
            setWiping(null);
            setWiped(disk.path);
          }}
        />
      )}
    </>
  );
}
