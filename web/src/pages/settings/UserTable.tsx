import { CdsButton } from '@cds/react/button';
import { CdsIcon } from '@cds/react/icon';
import type { User } from '../../api/settings';
import { formatDate, formatDateTime } from '../../format';

interface Props {
  users: User[];
  onPassword: (user: User) => void;
  onDelete: (user: User) => void;
}

/** One row per administrator; delete is offered for others only, and never for the last one. */
export function UserTable({ users, onPassword, onDelete }: Props) {
  const last = users.length <= 1;
  return (
    <div className="table-wrap">
      <table cds-table="border:outside border:row" className="data-table" data-testid="user-table">
        <thead>
          <tr>
            <th>User</th>
            <th>Added</th>
            <th className="col-actions">Actions</th>
          </tr>
        </thead>
        <tbody>
          {users.map((user) => (
            <tr key={user.id} data-user={user.username}>
              <th scope="row">
                {user.username} {user.you && <span className="pill pill-on">you</span>}
              </th>
              <td className="nowrap" title={formatDateTime(user.created_at)}>
                {formatDate(user.created_at)}
              </td>
              <td className="col-actions">
                <div className="row-actions">
                  <CdsButton size="sm" action="outline" onClick={() => onPassword(user)} aria-label={`Change password of ${user.username}`}>
                    Change password
                  </CdsButton>
                  {!user.you && !last && (
                    <CdsButton size="sm" action="outline" status="danger" onClick={() => onDelete(user)} aria-label={`Delete ${user.username}`}>
                      <CdsIcon shape="trash" /> Delete
                    </CdsButton>
                  )}
                </div>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
