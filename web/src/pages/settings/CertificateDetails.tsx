import { CdsIcon } from '@cds/react/icon';
import { useState } from 'react';
import type { CertificateFacts } from '../../api/settings';
import { Thumbprint } from '../../components/Thumbprint';
import { formatDateTime } from '../../format';

const DAY = 24 * 3600 * 1000;

/** What a certificate says about itself: who it names, until when, and its SHA-256 thumbprint. */
export function CertificateDetails({ facts }: { facts: CertificateFacts }) {
  const [now] = useState(Date.now); // when shown: a days-left figure need not tick
  const daysLeft = Math.floor((new Date(facts.not_after).getTime() - now) / DAY);
  return (
    <dl className="cert-details" data-testid="certificate-facts">
      <dt>Subject</dt>
      <dd>{facts.subject}</dd>
      <dt>Issuer</dt>
      <dd>
        {facts.self_signed ? 'itself (self-signed: browsers warn until it is trusted)' : facts.issuer}
        {facts.chain_length > 1 && <span className="muted"> · chain of {facts.chain_length} certificates</span>}
      </dd>
      <dt>Host names</dt>
      <dd>
        {facts.sans.length ? facts.sans.join(', ') : <span className="text-danger">none: browsers refuse a certificate without them</span>}
        {facts.host_names.length > 0 && (
          <div className={facts.matches_host ? 'muted small' : 'text-danger small'}>
            <CdsIcon shape={facts.matches_host ? 'check-circle' : 'exclamation-triangle'} size="sm" />{' '}
            {facts.matches_host ? 'Covers' : 'Does not cover'} this appliance’s name ({facts.host_names.join(', ')})
          </div>
        )}
      </dd>
      <dt>Valid</dt>
      <dd>
        {formatDateTime(facts.not_before)} to {formatDateTime(facts.not_after)}{' '}
        <span className={daysLeft < 30 ? 'text-danger' : 'muted'}>
          ({daysLeft < 0 ? 'expired' : `${daysLeft} ${daysLeft === 1 ? 'day' : 'days'} left`})
        </span>
      </dd>
      <dt>Key</dt>
      <dd>{facts.key}</dd>
      <dt>SHA-256 thumbprint</dt>
      <dd>
        <Thumbprint value={facts.thumbprint_sha256} />
      </dd>
    </dl>
  );
}
