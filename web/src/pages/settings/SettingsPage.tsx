import { PageHeader } from '../../components/PageHeader';
import { NfsSection } from './NfsSection';
import { TlsSection } from './TlsSection';
import { UsersSection } from './UsersSection';
import { VCentersSection } from './VCentersSection';
import './settings.css';

export function SettingsPage() {
  return (
    <>
      <PageHeader title="Settings" subtitle="Who can log in, the certificate browsers see, the NFS server and the vCenter connections." />
      <div className="storage-stack">
        <UsersSection />
        <TlsSection />
        <NfsSection />
        <VCentersSection />
      </div>
    </>
  );
}
