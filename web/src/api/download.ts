/** A file the api answers as an attachment: its name from Content-Disposition, and the browser's save. */

/** The file name the api gives (Content-Disposition), or ``fallback``. */
export function attachmentName(disposition: string | null, fallback: string): string {
  const found = /filename="([A-Za-z0-9._-]+)"/.exec(disposition ?? '');
  return found?.[1] ?? fallback;
}

/** Hand a downloaded file to the browser's save dialog. */
export function saveFile(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.appendChild(link);
  link.click();
  link.remove();
  // the click has started the download; the URL is not needed past this task
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/** A file sent as the request's raw body (application/octet-stream), not serialised as JSON. */
export function rawBody(file: File) {
  return {
    body: file as unknown as string,
    bodySerializer: (body: unknown) => body,
    headers: { 'Content-Type': 'application/octet-stream' },
  };
}
