import { CdsIcon } from '@cds/react/icon';
import type { ReactNode } from 'react';

interface Props {
  level: number;
  icon: string;
  name: string;
  expanded?: boolean;
  onToggle?: () => void;
  children?: ReactNode;
}

/** The first cell of a tree-table row: indent, expand toggle, icon and name. */
export function TreeName({ level, icon, name, expanded, onToggle, children }: Props) {
  return (
    <th scope="row" className="tree-name" style={{ paddingLeft: `${0.5 + (level - 1) * 1.5}rem` }}>
      {onToggle ? (
        <button
          type="button"
          className="tree-toggle"
          aria-expanded={expanded}
          aria-label={`${expanded ? 'Collapse' : 'Expand'} ${name}`}
          onClick={onToggle}
        >
          <CdsIcon shape="angle" direction={expanded ? 'down' : 'right'} size="sm" />
        </button>
      ) : (
        <span className="tree-toggle-spacer" />
      )}
      <CdsIcon shape={icon} size="md" />
      <span className="tree-label">{name}</span>
      {children}
    </th>
  );
}
