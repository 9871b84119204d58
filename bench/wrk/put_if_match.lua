-- PUT with If-Match, as a careful client does it: each wrk thread has exactly one connection
-- (the harness runs -t N -c N) and owns one article (BENCH_PUT_IDS, one per thread), so no
-- two connections race for the same ETag. The thread GETs its article once for the current
-- ETag, then sends each PUT with the ETag the previous PUT answered. A response without a
-- usable ETag (a 412, an error) makes the next request a GET again; those refreshes are
-- counted apart and are not PUTs.
dofile(os.getenv("BENCH_LUA_DIR") .. "/report.lua")

statuses = {}
refreshes = 0
local etag = nil
local number = 0
local path, token, content

function init(args)
   local ids = {}
   for id in (os.getenv("BENCH_PUT_IDS") or ""):gmatch("%d+") do
      table.insert(ids, id)
   end
   path = os.getenv("BENCH_PUT_PREFIX") .. ids[thread_number + 1]
   token = os.getenv("BENCH_TOKEN")
   content = os.getenv("BENCH_PUT_CONTENT") or "Replaced by the benchmark."
end

function request()
   if etag == nil then
      refreshes = refreshes + 1
      return wrk.format("GET", path, {["Accept"] = "application/hal+json"})
   end
   number = number + 1
   local body = string.format('{"title": "Benchmark PUT %d", "content": "%s"}', number, content)
   return wrk.format("PUT", path, {
      ["Content-Type"] = "application/json",
      ["Accept"] = "application/hal+json",
      ["X-Access-Token"] = token,
      ["If-Match"] = etag,
   }, body)
end

function response(status, headers, body)
   statuses[status] = (statuses[status] or 0) + 1
   local tag = headers["ETag"] or headers["Etag"] or headers["etag"]
   if status >= 200 and status < 300 and tag then
      etag = tag
   else
      etag = nil
   end
end
