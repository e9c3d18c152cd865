import type { FirewallRule } from '../../api/settings';

/** Which NIC a rule answers on, as an admin reads it: the storage NIC, or every other one. */
function network(rule: FirewallRule): string {
  if (!rule.interface) return 'any';
  return rule.interface.startsWith('not ') ? `management (all but ${rule.interface.slice(4)})` : `storage (${rule.interface})`;
}

/** Every accept rule in effect: a service, its TCP ports, who may reach it and, with a storage network, on which NIC. */
export function FirewallRules({ rules }: { rules: FirewallRule[] }) {
  const split = rules.some((rule) => rule.interface);
  return (
    <div className="table-wrap">
      <table cds-table="border:outside border:row" className="data-table" data-testid="firewall-rules">
        <caption className="sr-only">What the firewall lets in; everything else is refused</caption>
        <thead>
          <tr>
            <th>Service</th>
            <th>TCP ports</th>
            {split && <th>Network</th>}
            <th>Allowed from</th>
          </tr>
        </thead>
        <tbody>
          {rules.map((rule) => (
            <tr key={rule.service} data-service={rule.service}>
              <th scope="row">{rule.service}</th>
              <td className="nowrap">{rule.ports.join(', ')}</td>
              {split && <td className="nowrap">{network(rule)}</td>}
              <td>
                {rule.sources.length === 0 ? (
                  <span className="muted">nobody</span>
                ) : (
                  rule.sources.map((source, i) => (
                    <span key={source}>
                      {i > 0 && ', '}
                      <code>{source}</code>
                    </span>
                  ))
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
