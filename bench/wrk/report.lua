-- Shared by every workload script: after the run, one line `BENCH_JSON {...}` that the harness
-- parses (wrk's own text summary rounds and changes units). Latencies in microseconds.
threads = {}

function setup(thread)
   thread:set("thread_number", #threads)
   table.insert(threads, thread)
end

local function statuses_json()
   local totals = {}
   for _, thread in ipairs(threads) do
      local counted = thread:get("statuses")
      if counted then
         for status, n in pairs(counted) do
            totals[status] = (totals[status] or 0) + n
         end
      end
   end
   local parts = {}
   for status, n in pairs(totals) do
      table.insert(parts, string.format('"%d": %d', status, n))
   end
   return "{" .. table.concat(parts, ", ") .. "}"
end

local function thread_sum(name)
   local total = 0
   for _, thread in ipairs(threads) do
      total = total + (thread:get(name) or 0)
   end
   return total
end

function done(summary, latency, requests)
   local e = summary.errors
   io.write(string.format(
      'BENCH_JSON {"requests": %d, "duration_us": %d, "bytes": %d, ' ..
      '"socket_errors": {"connect": %d, "read": %d, "write": %d, "timeout": %d}, ' ..
      '"status_errors": %d, "statuses": %s, "refreshes": %d, ' ..
      '"p50_us": %d, "p90_us": %d, "p99_us": %d, "max_us": %d, "mean_us": %.1f}\n',
      summary.requests, summary.duration, summary.bytes,
      e.connect, e.read, e.write, e.timeout, e.status, statuses_json(), thread_sum("refreshes"),
      latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max,
      latency.mean))
end
