// The export form's own checks; the api checks the same again (appliance/control/names.py).

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const IPV6 = /^[0-9A-Fa-f:.]+$/;

/** Host addresses typed one per line, or separated by commas or spaces. */
export function parseClients(text: string): string[] {
  return [...new Set(text.split(/[\s,;]+/).map((a) => a.trim()).filter(Boolean))];
}

/** The first address that is not an IP address of one host, or null when all are. */
export function badAddress(clients: string[]): string | null {
  for (const address of clients) {
    if (IPV4.test(address)) {
      if (address === '0.0.0.0' || Number(address.split('.')[0]) >= 224) return address;
      continue;
    }
    if (address.includes(':') && address.split(':').length >= 3 && IPV6.test(address)) continue;
    return address;
  }
  return null;
}

export interface ExportDraft {
  dataset: string;
  protocol: '3' | '4.1';
  clients: string;
  insecurePorts: boolean;
}

export type ExportErrors = Partial<Record<'dataset' | 'clients', string>>;

export function validateExport(draft: ExportDraft): ExportErrors {
  const errors: ExportErrors = {};
  if (!draft.dataset) errors.dataset = 'Pick the dataset to export.';
  const clients = parseClients(draft.clients);
  const bad = badAddress(clients);
  if (clients.length === 0) errors.clients = 'Enter the address of at least one ESXi host.';
  else if (bad) errors.clients = `"${bad}" is not the IP address of one host (no names, no networks).`;
  else if (clients.length > 64) errors.clients = 'At most 64 hosts per export.';
  return errors;
}
