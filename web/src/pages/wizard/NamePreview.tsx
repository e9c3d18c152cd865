import { Link } from 'react-router';
import { desktopName } from './desktopsModel';

/** The first and last desktop names the pattern gives, as the admin types (nothing shown while invalid). */
export function NamePreview({ naming, count, firstNumber }: { naming: string; count: number; firstNumber: number }) {
  const valid = naming.includes('#') && Number.isInteger(count) && count >= 1 && Number.isInteger(firstNumber) && firstNumber >= 0;
  return (
    <p className="name-preview" aria-live="polite" data-testid="name-preview">
      {valid ? (
        <>
          Desktops will be named <strong className="mono">{desktopName(naming, firstNumber)}</strong>
          {count > 1 && (
            <>
              {' '}
              to <strong className="mono">{desktopName(naming, firstNumber + count - 1)}</strong>
            </>
          )}{' '}
          ({count} desktop{count === 1 ? '' : 's'}). <Link to="/deploy/pooltype">Change the count in step 4</Link>
        </>
      ) : (
        <span className="muted">The preview of the names appears once the pattern has a run of &apos;#&apos; and the count is set.</span>
      )}
    </p>
  );
}
