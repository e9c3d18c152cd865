import { CdsButton } from '@cds/react/button';
import { CdsIcon } from '@cds/react/icon';
import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { type Dataset, useDatasets, usePools } from '../../api/storage';
import { ErrorState } from '../../components/ErrorState';
import { StorageLink } from '../../components/StorageLink';
import { Loading } from '../../components/Loading';
import { PageHeader } from '../../components/PageHeader';
import { SelectField } from '../../components/SelectField';
import { CreateDatasetForm } from './CreateDatasetForm';
import { DatasetTable } from './DatasetTable';
import { EditDatasetModal } from './EditDatasetModal';
import { RefreshButton } from './RefreshButton';

/** The datasets and zvols of one pool (?pool=name; the first pool when none is named). */
export function DatasetsPage() {
  const pools = usePools();
  const [params, setParams] = useSearchParams();
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<Dataset | null>(null);
  const names = pools.data?.map((p) => p.name) ?? [];
  const wanted = params.get('pool');
  const pool = wanted && names.includes(wanted) ? wanted : (names[0] ?? null);
  const datasets = useDatasets(pool);

  return (
    <>
      <PageHeader
        title="Datasets"
        subtitle="File systems (NFS datastores) and zvols (iSCSI LUNs) of a pool, with their space and compression."
        actions={
          <>
            <RefreshButton query={pool ? datasets : pools} />
            <CdsButton onClick={() => setCreating(true)} disabled={!pool || creating}>
              <CdsIcon shape="plus" /> Create dataset
            </CdsButton>
          </>
        }
      />
      {pools.isPending && <Loading label="Reading the pools" />}
      {pools.isError && <ErrorState title="Could not read the pools" error={pools.error} onRetry={() => void pools.refetch()} />}
      {pools.isSuccess && names.length === 0 && (
        <div className="empty-state">
          <CdsIcon shape="storage" size="xl" />
          <p cds-text="section">No pool yet — datasets live in a pool</p>
          <StorageLink to="/storage/pools">Create a pool from free disks</StorageLink>
        </div>
      )}
      {pool && (
        <>
          {names.length > 1 && (
            <div className="toolbar">
              <SelectField
                label="Pool"
                name="pool"
                value={pool}
                options={names.map((n) => ({ value: n, label: n }))}
                onChange={(value) => setParams({ pool: value })}
              />
            </div>
          )}
          {creating && <CreateDatasetForm pool={pool} onDone={() => setCreating(false)} />}
          {datasets.isPending && <Loading label={`Reading the datasets of ${pool}`} />}
          {datasets.isError && (
            <ErrorState title={`Could not read the datasets of ${pool}`} error={datasets.error} onRetry={() => void datasets.refetch()} />
          )}
          {datasets.isSuccess && (
            <DatasetTable pool={pool} datasets={datasets.data} onCreate={() => setCreating(true)} onEdit={setEditing} />
          )}
          {editing && <EditDatasetModal dataset={editing} onClose={() => setEditing(null)} />}
        </>
      )}
    </>
  );
}
