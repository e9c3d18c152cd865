import { CdsProgressCircle } from '@cds/react/progress-circle';

/** A busy indicator with words for screen readers and for people. */
export function Loading({ label, fullPage = false }: { label: string; fullPage?: boolean }) {
  return (
    <div className={fullPage ? 'loading loading-page' : 'loading'} role="status" aria-live="polite">
      <CdsProgressCircle size="lg" status="info" />
      <span>{label}…</span>
    </div>
  );
}
