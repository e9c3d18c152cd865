import { PageHeader } from '../../components/PageHeader';
import { BackupSection } from './BackupSection';
import { FirewallSection } from './FirewallSection';
import { NfsSection } from './NfsSection';
import { SupportSection } from './SupportSection';
import { SyslogSection } from './SyslogSection';
import { TlsSection } from './TlsSection';
import { UpgradeSection } from './UpgradeSection';
import { UsersSection } from './UsersSection';
import { VCentersSection } from './VCentersSection';
import './settings.css';

export function SettingsPage() {
  return (
    <>
      <PageHeader title="Settings" subtitle="Who can log in, the certificate browsers see, who may reach the appliance (firewall and SSH), the NFS server, the vCenter connections, remote syslog, configuration backups, upgrades and the support bundle." />
      <div className="storage-stack">
        <UsersSection />
        <TlsSection />
        <FirewallSection />
        <NfsSection />
        <VCentersSection />
        <SyslogSection />
        <BackupSection />
        <UpgradeSection />
        <SupportSection />
      </div>
    </>
  );
}
