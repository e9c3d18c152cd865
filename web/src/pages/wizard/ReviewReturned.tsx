import { FormAlert } from '../../components/FormAlert';
import { backendFieldOf } from './backendModel';
import type { Draft, StepId } from './draft';
import { useReturnedError } from './ReviewErrors';

/** Steps that show the api's refusal beside the field itself (the others get it above their form). */
const AT_THE_FIELD: ReadonlySet<StepId> = new Set(['desktops', 'placement']);

/** The api's refusal that Review sent back to this step, when the step does not show it at the field (Back end
 * shows those of its own fields there: StepBackend). */
export function ReviewReturned({ step, draft }: { step: StepId; draft: Draft }) {
  const returned = useReturnedError();
  if (!returned || AT_THE_FIELD.has(step)) return null;
  if (step === 'backend' && backendFieldOf(returned.field, draft.hosts, Boolean(draft.backend.storageNetwork))) return null;
  return (
    <FormAlert>
      The plan was refused: {returned.message} <span className="muted">(field {returned.field})</span>
    </FormAlert>
  );
}
