import type { RestoreReport } from '../api/backup';
import { FormAlert } from './FormAlert';

/** What a restore did: each section as stored, what converging changed, what is not in effect or not restored. */
export function RestoreResult({ report }: { report: RestoreReport }) {
  const lost = report.not_restored;
  const failed = report.converged.filter((c) => c.failure);
  const titles = Object.fromEntries(report.restored.map((s) => [s.section, s.title]));
  return (
    <div data-testid="restore-report">
      <FormAlert status={lost.length || failed.length ? 'warning' : 'success'}>
        Restored the configuration of {report.source_hostname} (backup of {report.created_at}, arcvsa{' '}
        {report.source_version}).
        {report.sessions_ended && ' Every login ended: log in again with the accounts of the backup.'}
      </FormAlert>
      <ul data-testid="restore-restored">
        <li>
          Pools imported: {report.pools_imported.join(', ') || 'none'}
          {report.pools_present.length > 0 && ` (already imported: ${report.pools_present.join(', ')})`}
        </li>
        {report.restored.map((s) => (
          <li key={s.section}>
            {s.title}: {s.items.join(', ') || 'none'}
          </li>
        ))}
      </ul>
      {report.converged.some((c) => c.changes.length > 0) && (
        <>
          <p>Put into effect:</p>
          <ul data-testid="restore-converged">
            {report.converged.flatMap((c) =>
              c.changes.map((line) => (
                <li key={`${c.section}/${line}`}>
                  {titles[c.section] ?? c.section}: {line}
                </li>
              )),
            )}
          </ul>
        </>
      )}
      {failed.length > 0 && (
        <>
          <p>Stored, but not in effect yet (the appliance keeps trying where it reconciles them):</p>
          <ul data-testid="restore-not-converged">
            {failed.map((c) => (
              <li key={c.section}>
                {titles[c.section] ?? c.section}: {c.failure?.message}
              </li>
            ))}
          </ul>
        </>
      )}
      {lost.length > 0 && (
        <>
          <p>Not restored:</p>
          <ul data-testid="restore-not-restored">
            {lost.map((item) => (
              <li key={`${item.kind}/${item.name}`}>
                {item.kind} {item.name}: {item.reason}
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}
