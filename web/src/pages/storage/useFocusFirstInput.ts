import { type RefObject, useEffect } from 'react';

/**
 * Focus the first input inside `container` once it is shown. React's autoFocus runs before Clarity's
 * cds-input has rendered the slot its input goes in, when the input cannot take focus yet: a frame later it can.
 */
export function useFocusFirstInput(container: RefObject<HTMLElement | null>): void {
  useEffect(() => {
    const frame = requestAnimationFrame(() => container.current?.querySelector('input')?.focus());
    return () => cancelAnimationFrame(frame);
  }, [container]);
}
