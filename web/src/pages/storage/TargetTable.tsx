import { CdsButton } from '@cds/react/button';
import { CdsIcon } from '@cds/react/icon';
import { TableSection } from '../../components/TableSection';
import type { Target } from '../../api/storage';

const VAAI_NAMES: Record<string, string> = { emulate_3pc: 'XCOPY', emulate_caw: 'ATS', emulate_tpu: 'UNMAP' };

export function TargetTable({ targets, onRemove }: { targets: Target[]; onRemove: (t: Target) => void }) {
  return (
    <TableSection
      id="targets"
      title="Targets"
      count={targets.length}
      variant="storage-section"
      testId="targets-table"
      head={
        <>
          <th>Target IQN</th>
          <th>LUNs</th>
          <th>Initiators</th>
          <th>CHAP</th>
          <th>VAAI</th>
          <th className="col-actions">Actions</th>
        </>
      }
    >
      {targets.map((t) => (
        <tr key={t.iqn} data-testid="target-row" data-iqn={t.iqn}>
          <th scope="row">
            <code className="device-path">{t.iqn}</code>
          </th>
          <td>
            {t.luns.map((lun) => (
              <div key={lun}>
                <code>{lun.replace(/^\/dev\/zvol\//, '')}</code>
              </div>
            ))}
          </td>
          <td>
            {t.initiators.map((i) => (
              <div key={i}>
                <code>{i}</code>
              </div>
            ))}
          </td>
          <td>{t.chap ? 'Required' : <span className="muted">Off (ACLs only)</span>}</td>
          <td>
            {Object.entries(t.vaai).map(([k, v]) => (
              <span key={k} className={v ? 'pill pill-on' : 'pill'} title={k}>
                {VAAI_NAMES[k] ?? k}
              </span>
            ))}
          </td>
          <td className="col-actions">
            <CdsButton size="sm" action="outline" status="danger" onClick={() => onRemove(t)} aria-label={`Remove target ${t.iqn}`}>
              <CdsIcon shape="trash" /> Remove
            </CdsButton>
          </td>
        </tr>
      ))}
    </TableSection>
  );
}
