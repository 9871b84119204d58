-- The same request every time (GET, or a POST with a fixed body), described by the harness in
-- BENCH_METHOD, BENCH_HEADERS ("Name: value" lines) and BENCH_BODY_FILE. Every status is
-- counted in response(), so that the report gives the exact number of non-2xx answers.
dofile(os.getenv("BENCH_LUA_DIR") .. "/report.lua")

wrk.method = os.getenv("BENCH_METHOD") or "GET"
for line in (os.getenv("BENCH_HEADERS") or ""):gmatch("[^\n]+") do
   local name, value = line:match("^([^:]+):%s*(.*)$")
   wrk.headers[name] = value
end
local body_file = os.getenv("BENCH_BODY_FILE") or ""
if body_file ~= "" then
   local file = assert(io.open(body_file, "rb"))
   wrk.body = file:read("*a")
   file:close()
end

statuses = {}

function response(status, headers, body)
   statuses[status] = (statuses[status] or 0) + 1
end
