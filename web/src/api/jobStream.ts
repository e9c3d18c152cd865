import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { api } from './client';
import { call } from './errors';
import { finished, type Job, type JobEvent, useJob } from './jobs';

// Follow a job live: GET /api/jobs/{id}/stream (server-sent events: `job` on every change, `progress` per
// event with its id, `end` once finished). The browser reconnects by itself with Last-Event-ID; should
// the stream fail for good (a proxy that buffers, no EventSource), polling takes over: useJob from
// jobs.ts for the job, /events for what happened.

export type FollowMode = 'idle' | 'stream' | 'polling' | 'ended';

export interface JobFollow {
  job: Job | undefined;
  /** Every event of the job so far, oldest first (no duplicates across reconnects). */
  events: JobEvent[];
  mode: FollowMode;
  /** Why the job cannot be read while polling (e.g. it is gone with its deployment) */
  error: unknown;
}

interface Followed {
  jobId: number | null;
  generation: number;
  job: Job | undefined;
  events: JobEvent[];
  mode: 'stream' | 'polling' | 'ended';
}

/** Consecutive failed connections before giving up on the stream. */
const GIVE_UP = 3;
const POLL_MS = 1000;

function withEvents(s: Followed, batch: readonly JobEvent[]): Followed {
  const last = s.events.at(-1)?.id ?? 0;
  const fresh = batch.filter((e) => e.id > last);
  return fresh.length ? { ...s, events: [...s.events, ...fresh] } : s;
}

/**
 * A job and its events, live. Bump `generation` to follow it again after it was resumed (same job id:
 * the stream continues after the last event seen).
 */
export function useJobStream(jobId: number | null, generation = 0): JobFollow {
  const queryClient = useQueryClient();
  const noStream = typeof EventSource === 'undefined';
  const [followed, setFollowed] = useState<Followed>({ jobId, generation, job: undefined, events: [], mode: noStream ? 'polling' : 'stream' });
  // The last event id seen, and of which job (refs: read when a connection or a poll starts).
  const lastId = useRef(0);
  const lastOf = useRef<number | null>(null);
  const after = () => (lastOf.current === jobId ? lastId.current : 0);
  // Another job, or the same one resumed: start over (the events of a resumed job are kept).
  let s = followed;
  if (s.jobId !== jobId || s.generation !== generation) {
    const same = s.jobId === jobId;
    s = { jobId, generation, job: same ? s.job : undefined, events: same ? s.events : [], mode: noStream ? 'polling' : 'stream' };
    setFollowed(s);
  }
  const update = (change: (s: Followed) => Followed) =>
    setFollowed((old) => {
      if (old.jobId !== jobId) return old; // a late message of the job followed before
      const next = change(old);
      lastId.current = next.events.at(-1)?.id ?? 0;
      lastOf.current = jobId;
      return next;
    });

  useEffect(() => {
    if (jobId === null || noStream) return;
    const source = new EventSource(`/api/jobs/${jobId}/stream?after=${after()}`);
    let failures = 0;
    let frame = 0;
    let pending: JobEvent[] = [];
    // Many events can come at once (a backlog): render them together, once per frame.
    const flush = () => {
      frame = 0;
      const batch = pending;
      pending = [];
      update((old) => withEvents(old, batch));
    };
    const parse = (message: MessageEvent<string>) => {
      failures = 0;
      return JSON.parse(message.data) as Job;
    };
    source.addEventListener('job', (message: MessageEvent<string>) => {
      const job = parse(message);
      update((old) => ({ ...old, job }));
    });
    source.addEventListener('progress', (message: MessageEvent<string>) => {
      failures = 0;
      pending.push(JSON.parse(message.data) as JobEvent);
      frame ||= requestAnimationFrame(flush);
    });
    source.addEventListener('end', (message: MessageEvent<string>) => {
      const job = parse(message);
      source.close();
      if (frame) cancelAnimationFrame(frame);
      flush();
      update((old) => ({ ...old, job, mode: 'ended' }));
      void queryClient.invalidateQueries({ queryKey: ['jobs'] });
    });
    source.onerror = () => {
      failures += 1;
      if (source.readyState === EventSource.CLOSED || failures >= GIVE_UP) {
        source.close();
        update((old) => ({ ...old, mode: 'polling' }));
      }
    };
    return () => {
      source.close();
      if (frame) cancelAnimationFrame(frame);
    };
    // update only touches state and a ref; it is new on every render by design
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [jobId, generation, noStream, queryClient]);

  // The fallback: the job polled by useJob, its events read every second after the last one seen.
  const polling = jobId !== null && s.mode === 'polling';
  const polled = useJob(polling ? jobId : null);
  const [pollError, setPollError] = useState<unknown>(null);
  const done = polling && polled.data !== undefined && finished(polled.data);
  useEffect(() => {
    if (!polling || jobId === null) return;
    let stop = false;
    const tick = async () => {
      try {
        const path = { job_id: jobId };
        const batch = await call(api.GET('/api/jobs/{job_id}/events', { params: { path, query: { after: after(), limit: 1000 } } }));
        if (stop) return;
        setPollError(null);
        update((old) => withEvents(old, batch));
        if (batch.length === 1000) void tick(); // a backlog: read on at once
      } catch (error) {
        if (!stop) setPollError(error);
      }
    };
    void tick();
    const timer = done ? 0 : window.setInterval(() => void tick(), POLL_MS);
    return () => {
      stop = true;
      window.clearInterval(timer);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [polling, jobId, done]);

  if (jobId === null) return { job: undefined, events: [], mode: 'idle', error: null };
  const job = polling ? (polled.data ?? s.job) : s.job;
  return { job, events: s.events, mode: done ? 'ended' : s.mode, error: polling ? (polled.error ?? pollError) : null };
}
