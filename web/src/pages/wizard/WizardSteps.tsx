import { Link } from 'react-router';
import { STEPS } from './draft';

/** The step list: done steps link back, the current one is marked, later ones are not reachable yet. */
export function WizardSteps({ current, reached }: { current: number; reached: number }) {
  return (
    <nav aria-label="Wizard steps" className="wizard-steps">
      <ol>
        {STEPS.map((step, i) => {
          const state = i === current ? 'current' : i < reached || i < current ? 'done' : i === reached ? 'next' : 'later';
          return (
            <li key={step.id} data-state={state}>
              <span className="step-number" aria-hidden="true">
                {i + 1}
              </span>
              {i <= reached && i !== current ? (
                <Link to={`/deploy/${step.id}`}>{step.title}</Link>
              ) : (
                <span aria-current={i === current ? 'step' : undefined}>{step.title}</span>
              )}
            </li>
          );
        })}
      </ol>
    </nav>
  );
}
