import { useNfs } from '../../api/storage';
import { ErrorState } from '../../components/ErrorState';
import { Loading } from '../../components/Loading';
import { NfsBackendCard } from '../storage/NfsBackendCard';

/** Which NFS server the appliance runs (the storage pages' own card). */
export function NfsSection() {
  const nfs = useNfs();
  if (nfs.isPending) return <Loading label="Reading the NFS server" />;
  if (nfs.isError) {
    return (
      <section className="card storage-section" aria-labelledby="nfs-title" data-testid="nfs-backend-error">
        <h2 id="nfs-title" cds-text="section">
          NFS server
        </h2>
        <ErrorState title="Could not read the NFS server" error={nfs.error} onRetry={() => void nfs.refetch()} />
      </section>
    );
  }
  return <NfsBackendCard state={nfs.data} />;
}
