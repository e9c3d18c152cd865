import type { Inventory } from '../../api/types';
import { byName, isGoldenImage } from './model';
import { VmTable } from './VmTable';

/** Golden images (templates, VMs with snapshots) first: they are what desktop pools are cloned from. */
export function VmSection({ inventory, names }: { inventory: Inventory; names: Map<string, string> }) {
  const vms = byName(inventory.vms);
  const golden = vms.filter(isGoldenImage);
  const others = vms.filter((vm) => !isGoldenImage(vm));
  return (
    <>
      <section className="card inventory-section" aria-labelledby="golden-title">
        <h2 id="golden-title" cds-text="section">
          Golden images <span className="count">{golden.length}</span>
        </h2>
        <p cds-text="secondary">Templates and virtual machines with snapshots, the sources for desktop pools.</p>
        {golden.length > 0 ? (
          <VmTable vms={golden} names={names} showSnapshots />
        ) : (
          <p className="muted">No template and no VM with a snapshot in this vCenter yet.</p>
        )}
      </section>
      <section className="card inventory-section" aria-labelledby="vms-title">
        <h2 id="vms-title" cds-text="section">
          Virtual machines <span className="count">{others.length}</span>
        </h2>
        {others.length > 0 ? <VmTable vms={others} names={names} /> : <p className="muted">No other virtual machines.</p>}
      </section>
    </>
  );
}
