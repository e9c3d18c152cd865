import { CdsButton } from '@cds/react/button';
import { CdsIcon } from '@cds/react/icon';
import { Link, useParams } from 'react-router';
import { useInventory, useVCenters } from '../../api/vcenters';
import { ErrorState } from '../../components/ErrorState';
import { Loading } from '../../components/Loading';
import { PageHeader } from '../../components/PageHeader';
import { formatAddress } from '../../format';
import { ComputeTree } from './ComputeTree';
import { DatastoreTable } from './DatastoreTable';
import { InventorySummary } from './InventorySummary';
import { NetworkTable } from './NetworkTable';
import { VmSection } from './VmSection';
import { namesByMoid } from './model';

export function InventoryPage() {
  const id = Number(useParams().id);
  const vcenter = useVCenters().data?.find((vc) => vc.id === id);
  const inventory = useInventory(id);

  const refresh = (
    <CdsButton action="outline" onClick={() => void inventory.refetch()} disabled={inventory.isFetching}>
      <CdsIcon shape="refresh" /> {inventory.isFetching && !inventory.isPending ? 'Refreshing' : 'Refresh'}
    </CdsButton>
  );

  return (
    <>
      <PageHeader
        crumbs={
          <>
            <Link to="/vcenters">vCenters</Link>
            <span aria-hidden="true">›</span>
            <span>Inventory</span>
          </>
        }
        title={vcenter?.name ?? 'Inventory'}
        subtitle={
          vcenter ? `Inventory of the vCenter Server at ${formatAddress(vcenter.host, vcenter.port)}` : undefined
        }
        actions={refresh}
      />
      {inventory.isPending && <Loading label="Reading the inventory from vCenter" />}
      {inventory.isError && (
        <ErrorState title="Could not read the inventory" error={inventory.error} onRetry={() => void inventory.refetch()} />
      )}
      {inventory.isSuccess && (
        <div className="inventory" aria-busy={inventory.isFetching}>
          <InventorySummary inventory={inventory.data} />
          <ComputeTree inventory={inventory.data} />
          <DatastoreTable inventory={inventory.data} names={namesByMoid(inventory.data)} />
          <NetworkTable inventory={inventory.data} />
          <VmSection inventory={inventory.data} names={namesByMoid(inventory.data)} />
        </div>
      )}
    </>
  );
}
