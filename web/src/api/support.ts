import { useMutation } from '@tanstack/react-query';
import { api } from './client';
import { attachmentName, saveFile } from './download';
import { call } from './errors';

const FALLBACK_NAME = 'arcvsa-support.tar.gz';

/** Make the support bundle on the appliance and save it (it can take a while: every log, pool history). */
export function useSupportBundle() {
  return useMutation({
    mutationFn: async () => {
      let disposition: string | null = null;
      const blob = await call(
        api.POST('/api/support/bundle', { parseAs: 'blob' }).then((result) => {
          disposition = result.response.headers.get('content-disposition');
          return result;
        }),
      );
      const name = attachmentName(disposition, FALLBACK_NAME);
      saveFile(blob as Blob, name);
      return { name, size: (blob as Blob).size };
    },
  });
}
