import type { ReactNode } from 'react';

interface Props {
  id: string;
  title: string;
  count: number;
  /** The header cells (`<th>`s) of the table. */
  head: ReactNode;
  /** The body rows. */
  children: ReactNode;
}

/** A titled card with a count and one data table: the frame every inventory list shares. */
export function InventorySection({ id, title, count, head, children }: Props) {
  return (
    <section className="card inventory-section" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`} cds-text="section">
        {title} <span className="count">{count}</span>
      </h2>
      <div className="table-wrap">
        <table cds-table="border:outside border:row" className="data-table">
          <thead>
            <tr>{head}</tr>
          </thead>
          <tbody>{children}</tbody>
        </table>
      </div>
    </section>
  );
}
