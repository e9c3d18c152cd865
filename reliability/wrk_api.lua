-- wrk script for the soak: admins' dashboards polling the appliance's api. Each connection sends the
-- next path of ARCVSA_PATHS (comma-separated) with the bearer token from ARCVSA_TOKEN (the environment,
-- not argv, so it shows in no process list), then waits ARCVSA_THINK_MS. done() prints one JSON line
-- (prefix ARCVSA-WRK) that reliability.steadiness.parse_wrk reads.
local token = os.getenv("ARCVSA_TOKEN") or ""
local think = tonumber(os.getenv("ARCVSA_THINK_MS") or "0")
local paths = {}
for path in string.gmatch(os.getenv("ARCVSA_PATHS") or "/api/health", "[^,]+") do
  paths[#paths + 1] = path
end
local sent = 0

request = function()
  sent = sent + 1
  local path = paths[(sent % #paths) + 1]
  return wrk.format("GET", path, { ["Authorization"] = "Bearer " .. token })
end

delay = function()
  return think
end

done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'ARCVSA-WRK {"requests":%d,"duration_us":%d,"p50_us":%d,"p90_us":%d,"p99_us":%d,"p999_us":%d,'
      .. '"max_us":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(90),
    latency:percentile(99), latency:percentile(99.9), latency.max,
    e.connect, e.read, e.write, e.status, e.timeout))
end
