import type { components } from './schema';

export type ErrorBody = components['schemas']['ErrorBody'];

/** An answer other than 2xx, in the api's one error shape: {detail, code, field, ...extra}. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly field: string | null;
  /** For certificate errors: the SHA-256 thumbprint the server presented. */
  readonly thumbprint: string | null;

  constructor(status: number, body: Partial<ErrorBody> & Record<string, unknown>) {
    super(typeof body.detail === 'string' && body.detail ? body.detail : `Request failed (HTTP ${status})`);
    this.name = 'ApiError';
    this.status = status;
    this.code = typeof body.code === 'string' ? body.code : status === 0 ? 'network_error' : 'http_error';
    this.field = typeof body.field === 'string' ? body.field : null;
    this.thumbprint = typeof body.thumbprint === 'string' ? body.thumbprint : null;
  }
}

/** Turn whatever came back (our error shape, FastAPI's default shape, plain text) into an ApiError. */
export function toApiError(status: number, body: unknown): ApiError {
  if (body && typeof body === 'object') {
    const obj = body as Record<string, unknown>;
    if (Array.isArray(obj.detail)) {
      const first = obj.detail[0] as { msg?: string } | undefined;
      return new ApiError(status, { ...obj, detail: first?.msg ?? 'Invalid input' });
    }
    return new ApiError(status, obj);
  }
  return new ApiError(status, { detail: typeof body === 'string' && body ? body : undefined });
}

interface FetchResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** Await an openapi-fetch call: the data on success, an ApiError otherwise (also when the api is unreachable). */
export async function call<T>(request: Promise<FetchResult<T>>): Promise<T> {
  let result: FetchResult<T>;
  try {
    result = await request;
  } catch (cause) {
    if (cause instanceof ApiError) throw cause;
    throw new ApiError(0, { detail: 'Cannot reach the arcvsa api. Check the network and try again.' });
  }
  if (!result.response.ok) throw toApiError(result.response.status, result.error);
  return result.data as T;
}

export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return 'Something went wrong';
}
