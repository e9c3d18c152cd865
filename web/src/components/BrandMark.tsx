/** The arcvsa mark: an arc over a disk, in the Clarity action blue. */
export function BrandMark({ size = 28 }: { size?: number }) {
  return (
    <svg width={size} height={size} viewBox="0 0 32 32" aria-hidden="true" focusable="false">
      <rect width="32" height="32" rx="6" fill="#0079b8" />
      <path d="M7 21a9 9 0 0 1 18 0" fill="none" stroke="#fff" strokeWidth="2.6" strokeLinecap="round" />
      <ellipse cx="16" cy="22" rx="5" ry="2" fill="#fff" />
    </svg>
  );
}
