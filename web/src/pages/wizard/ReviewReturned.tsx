import { FormAlert } from '../../components/FormAlert';
import type { StepId } from './draft';
import { useReturnedError } from './ReviewErrors';

/** Steps that show the api's refusal beside the field itself (the others get it above their form). */
const AT_THE_FIELD: ReadonlySet<StepId> = new Set(['desktops', 'placement']);

/** The api's refusal that Review sent back to this step, when the step does not show it at the field. */
export function ReviewReturned({ step }: { step: StepId }) {
  const returned = useReturnedError();
  if (!returned || AT_THE_FIELD.has(step)) return null;
  return (
    <FormAlert>
      The plan was refused: {returned.message} <span className="muted">(field {returned.field})</span>
    </FormAlert>
  );
}
