import type { ReactNode } from 'react';
import { useStorageScope } from '../api/scope';
import { ApplianceCrumbs } from './ApplianceCrumbs';

/** Page title, an optional line under it, and the page's actions on the right. */
interface Props {
  title: ReactNode;
  subtitle?: ReactNode;
  actions?: ReactNode;
  /** Where this page sits, e.g. vCenters › name; shown above the title. */
  crumbs?: ReactNode;
}

export function PageHeader({ title, subtitle, actions, crumbs: given }: Props) {
  // A storage page shown through the fleet manager names the appliance it is about.
  const { appliance } = useStorageScope();
  const crumbs = given ?? (appliance && <ApplianceCrumbs deployment={appliance.deployment} name={appliance.name} />);
  return (
    <div className="page-header">
      <div>
        {crumbs && (
          <nav className="breadcrumb" aria-label="Breadcrumb">
            {crumbs}
          </nav>
        )}
        <h1 cds-text="title">{title}</h1>
        {subtitle && <p className="page-subtitle">{subtitle}</p>}
      </div>
      {actions && <div className="page-actions">{actions}</div>}
    </div>
  );
}
