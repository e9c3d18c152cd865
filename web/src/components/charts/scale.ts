// Pure chart arithmetic: nice ticks, linear scales, time ticks and SVG paths with gaps.

/** Round tick values covering [min, max] in about ``count`` steps of 1, 2 or 5 times a power of ten. */
export function niceTicks(min: number, max: number, count = 4): number[] {
  let lo = Math.min(min, max);
  let hi = Math.max(min, max);
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) return [0, 1];
  if (hi === lo) hi = lo === 0 ? 1 : lo + Math.abs(lo) * 0.5;
  const raw = (hi - lo) / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const fraction = raw / magnitude;
  const step = (fraction >= 7.5 ? 10 : fraction >= 3.5 ? 5 : fraction >= 1.5 ? 2 : 1) * magnitude;
  lo = Math.floor(lo / step) * step;
  hi = Math.ceil(hi / step) * step;
  const ticks: number[] = [];
  for (let v = lo; v <= hi + step / 2; v += step) ticks.push(Number(v.toPrecision(12)));
  return ticks;
}

/** A linear map from [d0, d1] to [r0, r1]. */
export function linear(d0: number, d1: number, r0: number, r1: number): (v: number) => number {
  const span = d1 - d0 || 1;
  return (v) => r0 + ((v - d0) / span) * (r1 - r0);
}

const MINUTE = 60_000;
const TIME_STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440].map((m) => m * MINUTE);

/** Time ticks (epoch ms) on round minutes or hours, at most ``max`` of them inside [t0, t1]. */
export function timeTicks(t0: number, t1: number, max = 6): number[] {
  if (!(t1 > t0)) return [t0];
  const step = TIME_STEPS.find((s) => (t1 - t0) / s <= max) ?? TIME_STEPS[TIME_STEPS.length - 1]!;
  // Align on the local clock (a 15-minute tick lands on :00, :15 ...), not on UTC.
  const offset = new Date(t0).getTimezoneOffset() * MINUTE;
  const ticks: number[] = [];
  for (let t = Math.ceil((t0 - offset) / step) * step + offset; t <= t1; t += step) ticks.push(t);
  return ticks;
}

/** An SVG path through the points; a null value breaks the line (no sample, or nothing to divide by). */
export function linePath(xs: number[], ys: (number | null)[]): string {
  let path = '';
  let drawing = false;
  ys.forEach((y, i) => {
    if (y === null || !Number.isFinite(y)) {
      drawing = false;
      return;
    }
    path += `${drawing ? 'L' : 'M'}${xs[i]!.toFixed(1)},${y.toFixed(1)}`;
    drawing = true;
  });
  return path;
}

/** Index of the sample nearest to time ``t`` in ascending ``times``. */
export function nearestIndex(times: number[], t: number): number {
  let lo = 0;
  let hi = times.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (times[mid]! <= t) lo = mid;
    else hi = mid;
  }
  return Math.abs(times[hi]! - t) < Math.abs(times[lo]! - t) ? hi : lo;
}

export function formatClock(t: number, withSeconds = false): string {
  return new Date(t).toLocaleTimeString(undefined, {
    hour: '2-digit',
    minute: '2-digit',
    ...(withSeconds ? { second: '2-digit' } : {}),
  });
}
