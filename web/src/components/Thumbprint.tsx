import { Fragment } from 'react';

/**
 * A SHA-256 certificate thumbprint, monospaced. Lines break only between byte pairs (<wbr>, so a copy
 * stays exact); compact shows the first and last bytes with the whole value on hover.
 */
export function Thumbprint({ value, compact = false }: { value: string; compact?: boolean }) {
  if (compact) {
    const short = value.length > 24 ? `${value.slice(0, 8)}…${value.slice(-8)}` : value;
    return (
      <code className="thumbprint thumbprint-compact" title={value}>
        {short}
      </code>
    );
  }
  const pairs = value.split(':');
  return (
    <code className="thumbprint">
      {pairs.map((pair, i) => (
        <Fragment key={i}>
          {pair}
          {i < pairs.length - 1 && ':'}
          <wbr />
        </Fragment>
      ))}
    </code>
  );
}
