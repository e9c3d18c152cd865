import type { ReactNode } from 'react';

interface Props {
  id: string;
  title: string;
  count: number;
  /** The header cells (`<th>`s) of the table. */
  head: ReactNode;
  /** The body rows. */
  children: ReactNode;
  /** The page's section style, e.g. `inventory-section` or `storage-section`. */
  variant: string;
  /** data-testid of the table, for the browser tests. */
  testId?: string;
  /** Buttons beside the title. */
  actions?: ReactNode;
}

/** A titled card with a count and one data table: the frame every inventory and storage list shares. */
export function TableSection({ id, title, count, head, children, variant, testId, actions }: Props) {
  const heading = (
    <h2 id={`${id}-title`} cds-text="section">
      {title} <span className="count">{count}</span>
    </h2>
  );
  return (
    <section className={`card ${variant}`} aria-labelledby={`${id}-title`}>
      {actions ? (
        <div className="section-head">
          {heading}
          <div className="section-actions">{actions}</div>
        </div>
      ) : (
        heading
      )}
      <div className="table-wrap">
        <table cds-table="border:outside border:row" className="data-table" data-testid={testId}>
          <thead>
            <tr>{head}</tr>
          </thead>
          <tbody>{children}</tbody>
        </table>
      </div>
    </section>
  );
}
