import type { JobEvent } from '../../api/jobs';
import { reasonWords } from './reasonWords';

const SHOWN = 8;

/** An event in words: apply's opening summary carries a dict of counts, told here as their total. */
function words(e: JobEvent): string {
  const planned = /^(\d+) changes: \{/.exec(e.message);
  if (planned) return `${planned[1]} changes to make`;
  if (e.kind === 'failed' && e.object) return `failed: ${reasonWords(e.object, e.message).words}`;
  return e.kind === 'done' && !e.message ? 'done' : e.message;
}

/** The latest events in words (OVA bytes and clone task ids left out), newest first. */
export function DeployActivity({ events }: { events: readonly JobEvent[] }) {
  const recent = events.filter((e) => e.kind !== 'bytes' && e.kind !== 'task' && e.kind !== 'pin').slice(-SHOWN).reverse();
  if (!recent.length) return null;
  return (
    <section className="deploy-activity" aria-labelledby="deploy-activity-title">
      <h3 id="deploy-activity-title" cds-text="subsection">
        Latest activity
      </h3>
      <ul>
        {recent.map((e) => (
          <li key={e.id}>
            <span className="muted nowrap">{new Date(e.at).toLocaleTimeString()}</span>{' '}
            {e.object && <strong className="mono">{e.object}</strong>} {words(e)}
          </li>
        ))}
      </ul>
    </section>
  );
}
