import type { FirewallRule } from '../../api/settings';

/** Every accept rule in effect: a service, its TCP ports and who may reach it. */
export function FirewallRules({ rules }: { rules: FirewallRule[] }) {
  return (
    <div className="table-wrap">
      <table cds-table="border:outside border:row" className="data-table" data-testid="firewall-rules">
        <caption className="sr-only">What the firewall lets in; everything else is refused</caption>
        <thead>
          <tr>
            <th>Service</th>
            <th>TCP ports</th>
            <th>Allowed from</th>
          </tr>
        </thead>
        <tbody>
          {rules.map((rule) => (
            <tr key={rule.service} data-service={rule.service}>
              <th scope="row">{rule.service}</th>
              <td className="nowrap">{rule.ports.join(', ')}</td>
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
