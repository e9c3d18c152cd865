import type { Offers } from '../../api/wizard';
import { FormAlert } from '../../components/FormAlert';
import { applianceName } from './plan';
import { diskName } from './standInModel';

const ROLE = { data: 'LUN', log: 'SLOG SSD', cache: 'L2ARC SSD' } as const;

/** On the demo (and in the lab): which lab appliance plays which appliance, and what it filled in. */
export function StandInNotice({ offers, hosts, first }: { offers: Offers | undefined; hosts: readonly string[]; first?: number }) {
  if (!offers) return null;
  if (offers.stand_ins_refused) return <FormAlert status="warning">The lab appliance could not be offered: {offers.stand_ins_refused}</FormAlert>;
  if (offers.stand_ins_pending) {
    return <FormAlert status="info">The demo’s lab appliance is still booting: when it answers, it is filled in here as the first host’s appliance.</FormAlert>;
  }
  if (offers.stand_ins.length === 0) return null;
  return (
    <div data-testid="stand-ins">
      <FormAlert status="info">
        vCenter here is a simulator that runs no VMs, so lab appliances play the appliances this wizard deploys. Their api addresses and disks are
        filled in below (under Advanced); enter each one’s admin password as the appliance admin password.
      </FormAlert>
      <ul className="stand-ins">
        {offers.stand_ins.map((s, i) => (
          <li key={s.endpoint} data-testid="stand-in">
            <strong>{applianceName(i, first)}</strong>
            {hosts[i] ? ` on ${hosts[i]}` : ''} is played by {s.name} at <code>{s.endpoint}</code>, with{' '}
            {s.disks.map((d) => `${ROLE[d.role]} ${diskName(d.guest_path)}`).join(', ')}.
          </li>
        ))}
      </ul>
    </div>
  );
}
