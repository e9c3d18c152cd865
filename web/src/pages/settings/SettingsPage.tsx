import { PageHeader } from '../../components/PageHeader';
import { BackupSection } from './BackupSection';
import { NfsSection } from './NfsSection';
import { SupportSection } from './SupportSection';
import { TlsSection } from './TlsSection';
import { UsersSection } from './UsersSection';
import { VCentersSection } from './VCentersSection';
import './settings.css';

export function SettingsPage() {
  return (
    <>
      <PageHeader title="Settings" subtitle="Who can log in, the certificate browsers see, the NFS server, the vCenter connections and the support bundle." />
      <div className="storage-stack">
        <UsersSection />
        <TlsSection />
        <NfsSection />
        <VCentersSection />
        <BackupSection />
        <SupportSection />
      </div>
    </>
  );
}
