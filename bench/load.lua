-- wrk script for `make load` (bench/load.py): each connection walks a list of addresses,
-- one a line in the file named after `--`, each thread from its own place in it. At the end
-- it prints two lines that load.py reads: LOAD-RESULT {json}, the run's figures, and
-- LOAD-LATENCIES [[microseconds, answers], ...], every latency measured and how many
-- answers took it, for percentiles over several runs taken together (bench/rounds.py).

local threads = {}

function setup(thread)
  table.insert(threads, thread)
  thread:set("number", #threads)
end

function init(args)
  paths = {}
  for line in io.lines(args[1]) do
    if line ~= "" then table.insert(paths, line) end
  end
  -- Threads start far apart, so that they do not ask for the same address at once (a
  -- thread knows its number, set in setup, but not how many threads there are).
  position = ((number - 1) * 1009) % #paths
  hits, misses = 0, 0
end

function request()
  position = position % #paths + 1  -- Lua tables count from 1
  return wrk.format("GET", paths[position])
end

function response(status, headers, body)
  -- The page cache says whether it answered (cases/caching.py); a page it mended (its
  -- links rendered again, cases/public/case_links.py) counts as a miss.
  local cache = headers["X-Cache"]
  if cache == "hit" then
    hits = hits + 1
  elseif cache == "miss" or cache == "mended" then
    misses = misses + 1
  end
end

function done(summary, latency, requests)
  local cache_hits, cache_misses = 0, 0
  for _, thread in ipairs(threads) do
    cache_hits = cache_hits + thread:get("hits")
    cache_misses = cache_misses + thread:get("misses")
  end
  local errors = summary.errors
  io.write(string.format(
    'LOAD-RESULT {"requests": %d, "duration_us": %d, "p50_us": %d, "p90_us": %d, ' ..
    '"p99_us": %d, "max_us": %d, "non_2xx_3xx": %d, "connect_errors": %d, ' ..
    '"read_errors": %d, "write_errors": %d, "timeouts": %d, "cache_hits": %d, ' ..
    '"cache_misses": %d}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(90),
    latency:percentile(99), latency.max, errors.status, errors.connect, errors.read,
    errors.write, errors.timeout, cache_hits, cache_misses))
  -- wrk keeps a count for each microsecond; latency(i) is its i-th latency that occurred.
  local counts = {}
  for i = 1, #latency do
    local microseconds, answers = latency(i)
    counts[i] = string.format("[%d,%d]", microseconds, answers)
  end
  io.write("LOAD-LATENCIES [" .. table.concat(counts, ",") .. "]\n")
end
