/**
 * A failure's reason in words: the api names the error's kind first ('NotAnAppliance: arcvsa-01: ...'),
 * which is kept apart as the kind, and the object's own name is not repeated after it.
 */
export function reasonWords(object: string, reason: string): { kind: string | null; words: string } {
  const typed = /^([A-Z][A-Za-z]+): ([\s\S]*)$/.exec(reason);
  const kind = typed ? typed[1]! : null;
  let words = typed ? typed[2]! : reason;
  if (words.startsWith(`${object}: `)) words = words.slice(object.length + 2);
  return { kind, words };
}
