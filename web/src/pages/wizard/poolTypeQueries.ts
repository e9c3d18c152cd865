import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import { call } from '../../api/errors';
import type { SizingInput } from '../../api/storage';

/** The calculator's answer for an input, asked again whenever the input changes (it is pure and cheap). */
export function usePoolTypeRecommendation(body: SizingInput | null) {
  return useQuery({
    queryKey: ['tuning', 'recommendation', body],
    queryFn: () => call(api.POST('/api/tuning/recommendation', { body: body! })),
    enabled: body !== null,
    placeholderData: keepPreviousData,
    staleTime: Infinity,
    retry: false,
  });
}
