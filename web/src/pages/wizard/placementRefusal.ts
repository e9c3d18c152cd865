import { useCallback, useEffect, useState } from 'react';

/** Field key → message. Keys are the step's own (e.g. 'datacenter', 'address:esx-01'). */
export type Errors = Record<string, string>;

/**
 * A step's inline refusals (used by steps 1 to 4): `refuse(errors)` shows them next to their fields and
 * says whether the step may go on; the first refused field gets the focus so a keyboard user lands on it.
 */
export function useRefusal() {
  const [errors, setErrors] = useState<Errors>({});
  const [round, setRound] = useState(0);

  useEffect(() => {
    if (round === 0) return;
    const frame = requestAnimationFrame(() => {
      const first = document.querySelector<HTMLElement>('.wizard-body [aria-invalid="true"]');
      first?.focus();
    });
    return () => cancelAnimationFrame(frame);
  }, [round]);

  const refuse = useCallback((found: Errors): boolean => {
    setErrors(found);
    const refused = Object.keys(found).length > 0;
    if (refused) setRound((r) => r + 1);
    return refused;
  }, []);

  const clear = useCallback(
    (key: string) =>
      setErrors((current) => {
        if (!(key in current)) return current;
        const next = { ...current };
        delete next[key];
        return next;
      }),
    [],
  );

  return { errors, refuse, clear } as const;
}
