import { CdsButton } from '@cds/react/button';
import { CdsIcon } from '@cds/react/icon';

/** Read a page's data again; says "Refreshing" while a refetch of data already shown runs. */
export function RefreshButton({ query }: { query: { isFetching: boolean; isPending: boolean; refetch: () => unknown } }) {
  return (
    <CdsButton action="outline" onClick={() => void query.refetch()} disabled={query.isFetching}>
      <CdsIcon shape="refresh" /> {query.isFetching && !query.isPending ? 'Refreshing' : 'Refresh'}
    </CdsButton>
  );
}
