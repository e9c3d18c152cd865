import { ApiError, messageOf } from '../../api/errors';
import {
  type FirewallSettings,
  useCancelFirewallTrial,
  useConfirmFirewall,
  useFirewall,
  useSaveFirewall,
} from '../../api/settings';
import { ErrorState } from '../../components/ErrorState';
import { FormAlert } from '../../components/FormAlert';
import { Loading } from '../../components/Loading';
import { formatTime } from '../../format';
import { FirewallForm } from './FirewallForm';
import { FirewallRules } from './FirewallRules';
import { FirewallTrialPanel } from './FirewallTrialPanel';
import { firewallFieldErrors } from './firewallModel';

/** Who may reach the appliance: the accept rules in effect, the networks they follow, SSH on or off. */
export function FirewallSection() {
  const firewall = useFirewall();
  // here, not in the form: a kept change remounts the form (keyed on what is stored) and its outcome must stay
  const save = useSaveFirewall();
  const confirm = useConfirmFirewall();
  const cancel = useCancelFirewallTrial();

  const apply = (wanted: FirewallSettings) => {
    confirm.reset();
    cancel.reset();
    // The confirmation goes out from this browser through the rules on trial: its arrival is the proof
    // they still let the administrator in. When it cannot arrive, the appliance puts the old rules back.
    save.mutate(wanted, { onSuccess: (view) => view.trial && confirm.mutate() });
  };
  const keep = () => {
    save.reset();
    cancel.reset();
    confirm.mutate();
  };
  const drop = () => {
    save.reset();
    confirm.reset();
    cancel.mutate();
  };

  const until = firewall.data?.trial?.until ?? save.data?.trial?.until;
  const unreachable = confirm.error instanceof ApiError && confirm.error.code === 'network_error';
  const fieldRefusal = firewallFieldErrors(save.error) !== null; // shown beside its field instead
  return (
    <section className="card storage-section" aria-labelledby="firewall-title" data-testid="firewall">
      <div className="section-head">
        <h2 id="firewall-title" cds-text="section">
          Firewall and SSH
        </h2>
      </div>
      <p className="muted">
        The appliance refuses every connection the rules below do not allow. The web interface answers the management
        networks; NFS answers each export&apos;s hosts by itself; iSCSI answers the iSCSI initiator networks while a
        target exists. SSH takes keys only, never a password, and is off until turned on here.
      </p>
      {firewall.isPending && <Loading label="Reading the firewall" />}
      {firewall.isError && <ErrorState title="Could not read the firewall" error={firewall.error} onRetry={() => void firewall.refetch()} />}
      {firewall.isSuccess && (
        <>
          <p data-testid="firewall-your-address">
            Your address as the appliance sees it: <code>{firewall.data.your_address}</code>
            <span className="muted"> (saving management networks that leave it out is refused)</span>
          </p>
          {firewall.data.storage_network && (
            <p data-testid="firewall-storage-network">
              Storage network: <code>{firewall.data.storage_network.address}</code> on{' '}
              <code>{firewall.data.storage_network.interface}</code>, MTU {firewall.data.storage_network.mtu}. NFS and iSCSI
              are answered there alone, the web interface and SSH only on the other NICs, whatever the networks below
              allow. It was set at deployment (the OVF&apos;s storage network properties).
            </p>
          )}
          <FirewallRules rules={firewall.data.allowed} />
          {/* keyed: a save or a kept change starts the form again from what the api stored */}
          <FirewallForm
            key={JSON.stringify(firewall.data.settings)}
            settings={firewall.data.settings}
            busy={save.isPending || confirm.isPending}
            refusal={save.error}
            onSave={apply}
          >
            {save.isError && !fieldRefusal && <FormAlert>Not saved: {messageOf(save.error)}</FormAlert>}
            {save.isSuccess && !save.data.trial && <FormAlert status="success">Saved: the rules above are in effect.</FormAlert>}
            {confirm.isPending && (
              <FormAlert status="info">
                The new management networks are live: checking that this browser still reaches the appliance through them…
              </FormAlert>
            )}
            {confirm.isSuccess && <FormAlert status="success">Saved: the new management networks are kept.</FormAlert>}
            {confirm.isError &&
              (unreachable ? (
                <FormAlert>
                  This browser could not reach the appliance through the new management networks: unless the change is kept
                  before then, the previous rules come back by {until ? formatTime(until) : 'themselves in a minute or two'}.
                </FormAlert>
              ) : (
                <FormAlert>Not kept: {messageOf(confirm.error)}</FormAlert>
              ))}
            {cancel.isSuccess && <FormAlert status="info">Cancelled: the previous rules are back.</FormAlert>}
            {cancel.isError && <FormAlert>Not cancelled: {messageOf(cancel.error)}</FormAlert>}
            {firewall.data.trial && !confirm.isPending && (
              <FirewallTrialPanel
                trial={firewall.data.trial}
                cancelling={cancel.isPending}
                onKeep={keep}
                onCancel={drop}
                onOver={firewall.refetch}
              />
            )}
          </FirewallForm>
        </>
      )}
    </section>
  );
}
