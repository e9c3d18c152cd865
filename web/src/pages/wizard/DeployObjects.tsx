import type { Job } from '../../api/jobs';
import type { ObjectRow } from './deployModel';
import { reasonWords } from './reasonWords';

const WORDS: Record<ObjectRow['state'], string> = {
  waiting: 'waiting',
  working: 'in progress',
  retrying: 'retrying',
  done: 'done',
  failed: 'failed',
};

/** A row's state once its job ended: what was under way stopped with it. */
function stateWords(state: ObjectRow['state'], jobState: Job['state'], untouched: string): string {
  if (state === 'waiting') return untouched;
  const ended = jobState === 'cancelled' || jobState === 'failed';
  if (ended && (state === 'working' || state === 'retrying')) return jobState === 'cancelled' ? 'stopped by the cancel' : 'stopped';
  return WORDS[state];
}

/** Every VM (and mount) this run touches, with its latest state; the pool's desktops are listed from the start. */
export function DeployObjects({ rows, jobState }: { rows: ObjectRow[]; jobState: Job['state'] }) {
  // Untouched once the job ended: in place already when it succeeded, else never reached.
  const untouched = jobState === 'succeeded' ? 'in place already' : jobState === 'failed' || jobState === 'cancelled' ? 'not reached' : WORDS.waiting;
  const shown = rows.length > 500 ? rows.filter((r) => r.state !== 'waiting') : rows;
  return (
    <details className="deploy-objects" open={rows.length <= 50}>
      <summary>Per VM ({rows.length})</summary>
      <div className="table-wrap">
        <table cds-table="border:outside border:row" className="data-table" data-testid="deploy-objects">
          <thead>
            <tr>
              <th scope="col">Object</th>
              <th scope="col">State</th>
              <th scope="col">Last message</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((r) => (
              <tr key={r.name} data-object={r.name} data-state={r.state}>
                <td className="mono">{r.name}</td>
                <td className={r.state === 'failed' ? 'text-danger' : undefined}>{stateWords(r.state, jobState, untouched)}</td>
                <td>{r.state === 'failed' ? reasonWords(r.name, r.message).words : r.message}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </details>
  );
}
