import { useState } from 'react';
import type { Deployment } from '../../api/deployments';
import { TextField } from '../../components/TextField';
import { MAX_DESKTOPS } from '../wizard/desktopsModel';
import { PlanChangeModal } from './PlanChangeModal';
import { type Pool, resizeNames } from './poolModel';
import { usePlanChange } from './usePlanChange';


function names(list: string[]): string {
  return list.length > 6 ? `${list.slice(0, 3).join(', ')} … ${list.slice(-2).join(', ')}` : list.join(', ');
}

/** Grow or shrink a pool: a new desktop count, the desktops it adds or removes, then the diff and apply. */
export function ResizeModal(props: { deployment: Deployment; pool: Pool; onStarted: (jobId: number) => void; onClose: () => void }) {
  // As they were when the dialog opened: a preview stores the changed plan, and the page reads it again.
  const [{ deployment, pool }] = useState(props);
  const change = usePlanChange(deployment);
  const [text, setText] = useState(String(pool.count));
  const count = Number(text);
  const invalid =
    text.trim() === '' || !Number.isInteger(count)
      ? 'Give a whole number of desktops'
      : count < 1 || count > MAX_DESKTOPS
        ? `A pool has 1 to ${MAX_DESKTOPS} desktops`
        : count === pool.count
          ? `The pool has ${pool.count} desktops already`
          : undefined;
  const { added, removed } = invalid ? { added: [], removed: [] } : resizeNames(pool, count);
  const next = invalid ? null : { ...deployment.plan, pool: { ...pool, count } };
  return (
    <PlanChangeModal
      title={`Grow or shrink ${pool.name}`}
      next={next}
      fields={['pool.count']}
      change={change}
      onStarted={props.onStarted}
      onClose={props.onClose}
    >
      <p>
        {pool.name} has {pool.count} desktops ({names(resizeNames({ ...pool, count: 0 }, pool.count).added)}).
      </p>
      <TextField
        label="Desktops"
        name="count"
        type="number"
        width="short"
        value={text}
        onChange={setText}
        error={(text !== String(pool.count) ? invalid : undefined) ?? change.errorOf('pool.count')}
        hint="More grows the pool with new desktops; fewer removes the highest-numbered ones"
      />
      {added.length > 0 && (
        <p data-testid="resize-added">
          Grows by {added.length}: <code>{names(added)}</code>
        </p>
      )}
      {removed.length > 0 && (
        <p className="text-danger" data-testid="resize-removed">
          Shrinks by {removed.length}, removing <code>{names(removed)}</code> and everything on them
        </p>
      )}
    </PlanChangeModal>
  );
}
