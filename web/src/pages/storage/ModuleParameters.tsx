import { useParameters } from '../../api/storage';
import { ErrorState } from '../../components/ErrorState';
import { Loading } from '../../components/Loading';
import { formatValue } from './tuningModel';

/** The ZFS module parameters arcvsa tunes: in effect now, and what is set at module load. */
export function ModuleParameters() {
  const params = useParameters();
  return (
    <section className="card storage-section" aria-labelledby="params-title">
      <h2 id="params-title" cds-text="section">
        Module parameters in effect
      </h2>
      {params.isPending && <Loading label="Reading the module parameters" />}
      {params.isError && <ErrorState title="Could not read the module parameters" error={params.error} onRetry={() => void params.refetch()} />}
      {params.isSuccess && params.data.length === 0 && (
        <p className="empty-inline" data-testid="params-empty">
          No ZFS module parameters here: the zfs module is not loaded on the machine the api runs on.
        </p>
      )}
      {params.isSuccess && params.data.length > 0 && (
        <div className="table-wrap">
          <table cds-table="border:outside border:row" className="data-table" data-testid="params-table">
            <thead>
              <tr>
                <th>Parameter</th>
                <th className="num">In effect</th>
                <th className="num">At module load</th>
              </tr>
            </thead>
            <tbody>
              {params.data.map((p) => (
                <tr key={p.name}>
                  <th scope="row">
                    <code>{p.name}</code>
                  </th>
                  <td className="num nowrap">{formatValue(p.name, p.value)}</td>
                  <td className="num nowrap">
                    {p.persisted === null || p.persisted === undefined ? <span className="muted">not set by arcvsa</span> : formatValue(p.name, p.persisted)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
